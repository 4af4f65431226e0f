/*
 * Guest test: remap_file_pages as Linux emulates it: a page of a shared
 * file mapping now shows another page of the file (reads and writes go
 * there), and the calls it refuses with EINVAL (prot, private or
 * anonymous mappings, holes, a range past the mapping).
 */
#include "guest.h"

#include <fcntl.h>

int main(void)
{
	int fd = memfd_create("rfp", 0);
	char *m, *priv, *anon;

	ftruncate(fd, 4 * PAGE);
	for (int i = 0; i < 4; i++)
		pwrite(fd, (char[]){(char)('A' + i)}, 1, (off_t)i * PAGE);
	m = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED && m[0] == 'A' && m[PAGE] == 'B', "a shared mapping of 4 pages");
	CHECK_EQ(remap_file_pages(m, PAGE, 0, 3, 0), 0, "remap page 0 onto file page 3");
	CHECK(m[0] == 'D' && m[PAGE] == 'B', "page 0 shows file page 3");
	m[1] = 'x';
	{
		char c = 0;
		pread(fd, &c, 1, 3 * PAGE + 1);
		CHECK(c == 'x', "a write there reaches file page 3");
	}
	CHECK_EQ(remap_file_pages(m + PAGE, 2 * PAGE, 0, 0, 0), 0, "remap two pages onto 0 and 1");
	CHECK(m[PAGE] == 'A' && m[2 * PAGE] == 'B' && m[3 * PAGE] == 'D', "they show them");
	CHECK_ERRNO(remap_file_pages(m + 10, 1, 0, 2, 0), EINVAL, "a size that rounds down to 0");
	CHECK_EQ(remap_file_pages(m + 10, PAGE + 10, 0, 2, 0), 0, "start and size are rounded down");
	CHECK(m[0] == 'C' && m[PAGE] == 'A', "page 0 shows file page 2, page 1 stays");
	CHECK_ERRNO(remap_file_pages(m, PAGE, PROT_READ, 1, 0), EINVAL, "a prot");
	CHECK_ERRNO(remap_file_pages(m, 0, 0, 1, 0), EINVAL, "a size of 0");
	CHECK_ERRNO(remap_file_pages(m, 5 * PAGE, 0, 0, 0), EINVAL, "past the mapping");
	munmap(m + 2 * PAGE, PAGE);
	CHECK_ERRNO(remap_file_pages(m, 4 * PAGE, 0, 0, 0), EINVAL, "over a hole");
	priv = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	CHECK_ERRNO(remap_file_pages(priv, PAGE, 0, 1, 0), EINVAL, "a private mapping");
	anon = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK_ERRNO(remap_file_pages(anon, PAGE, 0, 1, 0), EINVAL, "anonymous memory");
	CHECK_ERRNO(remap_file_pages((char *)PAGE, PAGE, 0, 1, 0), EINVAL, "nothing mapped");
	return GUEST_DONE();
}
