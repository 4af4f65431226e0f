/*
 * Guest test: ELF files Linux still runs, and how it fails the others.
 * Small static programs made here (one page, code that exits 0):
 * overlapping and out-of-order PT_LOAD segments and one whose file bytes
 * run past the end of the file run; a segment Linux cannot map (file
 * offset misaligned to its address, more file than memory bytes) fails past
 * exec's point of no return: execve succeeds and the process dies of
 * SIGSEGV; an interpreter for another machine is ELIBBAD, an empty
 * interpreter path EACCES, a missing one ENOENT. And a script run from a
 * descriptor (execveat AT_EMPTY_PATH) is given /dev/fd/N as its path.
 */
#include "guest.h"

#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define BASE	 0x40000ul
#define CODE_OFF 0x200ul
#define FILE_LEN 0x300ul

static char dir[] = "/tmp/rung-elf-XXXXXX";

struct image {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[4];
	unsigned char buf[FILE_LEN];
};

/* A one-page static program: ehdr, phdrs, and exit(0) at CODE_OFF. */
static void image_init(struct image *im, uint16_t machine)
{
	static const unsigned char code[] = {
		0xb8, 0x3c, 0x00, 0x00, 0x00, /* mov $60, %eax (exit) */
		0x31, 0xff,		      /* xor %edi, %edi */
		0x0f, 0x05,		      /* syscall */
	};

	memset(im, 0, sizeof(*im));
	memcpy(im->eh.e_ident, ELFMAG, SELFMAG);
	im->eh.e_ident[EI_CLASS] = ELFCLASS64;
	im->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	im->eh.e_ident[EI_VERSION] = EV_CURRENT;
	im->eh.e_type = ET_EXEC;
	im->eh.e_machine = machine;
	im->eh.e_version = EV_CURRENT;
	im->eh.e_entry = BASE + CODE_OFF;
	im->eh.e_phoff = sizeof(Elf64_Ehdr);
	im->eh.e_ehsize = sizeof(Elf64_Ehdr);
	im->eh.e_phentsize = sizeof(Elf64_Phdr);
	im->eh.e_phnum = 1;
	im->ph[0] = (Elf64_Phdr){.p_type = PT_LOAD,
				 .p_flags = PF_R | PF_X,
				 .p_offset = 0,
				 .p_vaddr = BASE,
				 .p_filesz = FILE_LEN,
				 .p_memsz = FILE_LEN,
				 .p_align = PAGE};
	memcpy(im->buf + CODE_OFF, code, sizeof(code));
}

static void add_phdr(struct image *im, Elf64_Phdr ph)
{
	im->ph[im->eh.e_phnum++] = ph;
}

/* Write the image as an executable file named name; its path. */
static const char *image_write(struct image *im, const char *name)
{
	static char path[128];
	unsigned char file[FILE_LEN];
	int fd;

	memcpy(file, im->buf, FILE_LEN);
	memcpy(file, &im->eh, sizeof(im->eh));
	memcpy(file + sizeof(im->eh), im->ph, im->eh.e_phnum * sizeof(Elf64_Phdr));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write(fd, file, FILE_LEN) != (ssize_t)FILE_LEN)
		perror("image_write");
	close(fd);
	return path;
}

/* Run path in a child: its execve errno (0 when the exec happened) and how
 * it ended. */
static int run(const char *path, int *status)
{
	int pfd[2], err = 0;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char *argv[] = {(char *)path, NULL}, *envp[] = {NULL};
		execve(path, argv, envp);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	if (read(pfd[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(pfd[0]);
	waitpid(pid, status, 0);
	return err;
}

static void runs(const char *what, struct image *im)
{
	int status = -1;
	char msg[160];

	snprintf(msg, sizeof(msg), "%s: runs and exits 0", what);
	CHECK(run(image_write(im, "prog"), &status) == 0 && WIFEXITED(status) &&
		      WEXITSTATUS(status) == 0,
	      msg);
}

static void dies(const char *what, struct image *im)
{
	int status = -1;
	char msg[160];

	snprintf(msg, sizeof(msg), "%s: execve succeeds, then SIGSEGV", what);
	CHECK(run(image_write(im, "prog"), &status) == 0 && WIFSIGNALED(status) &&
		      WTERMSIG(status) == SIGSEGV,
	      msg);
}

static void fails(const char *what, struct image *im, int want)
{
	int status = -1, err = run(image_write(im, "prog"), &status);
	char msg[160];

	snprintf(msg, sizeof(msg), "%s: execve fails with %s", what, strerrorname_np(want));
	CHECK(err == want, msg);
	if (err != want)
		printf("  (got %s)\n", err ? strerrorname_np(err) : "0");
}

static void with_interp(struct image *im, const char *path, size_t len)
{
	size_t off = 0x100;

	memcpy(im->buf + off, path, len);
	add_phdr(im, (Elf64_Phdr){.p_type = PT_INTERP,
				  .p_flags = PF_R,
				  .p_offset = off,
				  .p_vaddr = BASE + off,
				  .p_filesz = len,
				  .p_memsz = len,
				  .p_align = 1});
}

/* A memfd script run by execveat(fd, "", AT_EMPTY_PATH): its $0. */
static void fd_script(void)
{
	static const char script[] = "#!/bin/sh\necho \"$0\"\n";
	int fd = memfd_create("script", 0), out[2], status = -1;
	char got[64] = {0}, want[64];
	pid_t pid;

	CHECK(fd >= 0 && write(fd, script, sizeof(script) - 1) == sizeof(script) - 1 &&
		      pipe(out) == 0,
	      "a script in a memfd");
	pid = fork();
	if (pid == 0) {
		char *argv[] = {"script", NULL}, *envp[] = {NULL};
		dup2(out[1], 1);
		syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
		_exit(127);
	}
	close(out[1]);
	if (read(out[0], got, sizeof(got) - 1) < 0)
		got[0] = 0;
	waitpid(pid, &status, 0);
	snprintf(want, sizeof(want), "/dev/fd/%d\n", fd);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && strcmp(got, want) == 0,
	      "execveat of it: its interpreter is given /dev/fd/N");
	close(out[0]);
	close(fd);
}

int main(void)
{
	struct image im, interp;
	char ipath[128];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	image_init(&im, EM_X86_64);
	runs("a one-segment program", &im);

	image_init(&im, EM_X86_64);
	add_phdr(&im, (Elf64_Phdr){.p_type = PT_LOAD,
				   .p_flags = PF_R | PF_W | PF_X,
				   .p_vaddr = BASE,
				   .p_filesz = FILE_LEN,
				   .p_memsz = FILE_LEN});
	runs("two segments at the same address", &im);

	image_init(&im, EM_X86_64);
	add_phdr(&im, (Elf64_Phdr){.p_type = PT_LOAD,
				   .p_flags = PF_R,
				   .p_vaddr = 0x20000,
				   .p_filesz = FILE_LEN,
				   .p_memsz = FILE_LEN});
	runs("a segment below the one before it", &im);

	image_init(&im, EM_X86_64);
	im.ph[0].p_filesz = im.ph[0].p_memsz = 3 * PAGE;
	runs("a segment whose file bytes run past the file's end", &im);

	image_init(&im, EM_X86_64);
	add_phdr(&im, (Elf64_Phdr){.p_type = PT_LOAD,
				   .p_flags = PF_R,
				   .p_offset = 1,
				   .p_vaddr = 0x80000,
				   .p_filesz = 16,
				   .p_memsz = 16});
	dies("a segment's offset misaligned to its address", &im);

	image_init(&im, EM_X86_64);
	im.ph[0].p_filesz = im.ph[0].p_memsz + 1;
	dies("a segment with more file than memory bytes", &im);

	image_init(&interp, EM_PPC64);
	snprintf(ipath, sizeof(ipath), "%s", image_write(&interp, "interp"));
	image_init(&im, EM_X86_64);
	with_interp(&im, ipath, strlen(ipath) + 1);
	fails("an interpreter for another machine", &im, ELIBBAD);

	image_init(&im, EM_X86_64);
	with_interp(&im, "\0", 2);
	fails("an empty interpreter path", &im, EACCES);

	image_init(&im, EM_X86_64);
	with_interp(&im, "/nonexistent/ld.so", sizeof("/nonexistent/ld.so"));
	fails("a missing interpreter", &im, ENOENT);

	image_init(&im, EM_X86_64);
	with_interp(&im, "/x", 2);
	fails("an interpreter path without its NUL", &im, ENOEXEC);

	fd_script();

	unlink(ipath);
	snprintf(ipath, sizeof(ipath), "%s/prog", dir);
	unlink(ipath);
	rmdir(dir);
	return GUEST_DONE();
}
