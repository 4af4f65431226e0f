/* Placeholder until the gofer server lands. */
#include "config.h"
#include "gofer/gofer.h"

#include <stdio.h>

int gofer_main(int argc, char **argv)
{
	fprintf(stderr, "rung: the gofer is not built yet\n");
	return 1;
}
