/* Guest test: the smallest program: stdout, argv and an exit status. */
#include <stdio.h>

int main(int argc, char **argv)
{
	printf("hello, world\n");
	printf("argc=%d\n", argc);
	for (int i = 1; i < argc; i++)
		printf("argv[%d]=%s\n", i, argv[i]);
	return 7;
}
