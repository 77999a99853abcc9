/* seccomp_exec ERRNO PROGRAM [ARGS...]: runs PROGRAM under a seccomp
 * filter that fails io_uring_setup(2) with ERRNO (EPERM or ENOSYS), as a
 * container runtime's default profile does, and allows every other
 * system call. seccomp_exec ALLOW FILE PROGRAM [ARGS...]: allows only the
 * system call numbers listed in FILE and fails every other with EPERM
 * (deploy/k8s/shb-seccomp.json, checked by tests/deploy/seccomp.sh). The filter is raw classic BPF (no libseccomp): check the
 * architecture, load the system call number, compare. Exit status 125
 * when the filter cannot be installed or PROGRAM cannot be run. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#elif defined(__i386__)
#define ARCH AUDIT_ARCH_I386
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH AUDIT_ARCH_RISCV64
#else
#error "seccomp_exec: add this architecture's AUDIT_ARCH_*"
#endif

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425 /* the same on every architecture */
#endif

static int install(unsigned err)
{
	struct sock_filter prog[] = {
		/* another architecture's calls (x32, i386 on x86-64): kill,
		 * or their numbers could pass for allowed ones */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fprog = {
		.len = sizeof(prog) / sizeof(prog[0]),
		.filter = prog,
	};
	/* Without privileges, a filter needs no_new_privs first. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
}

/* An allowlist: every number in `nrs` allowed, anything else fails with
 * EPERM, as a profile with defaultAction SCMP_ACT_ERRNO does. */
static int install_allow(const long *nrs, size_t n)
{
	struct sock_filter prog[4 + 2 * 512 + 1];
	size_t k = 0;

	if (n > 512)
		return -1;
	prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, arch));
	prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0);
	prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < n; i++) {
		prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							 (unsigned)nrs[i], 0, 1);
		prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						 SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
	struct sock_fprog fprog = {.len = (unsigned short)k, .filter = prog};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
}

/* ALLOW FILE: system call numbers, one per line. */
static int allow_from(const char *path)
{
	static long nrs[512];
	size_t n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (n < 512 && fscanf(f, "%ld", &nrs[n]) == 1)
		n++;
	fclose(f);
	return n ? install_allow(nrs, n) : -1;
}

int main(int argc, char **argv)
{
	unsigned err;
	if (argc >= 4 && !strcmp(argv[1], "ALLOW")) {
		if (allow_from(argv[2]) != 0) {
			fprintf(stderr, "seccomp_exec: cannot install the allowlist "
				"from %s: %s\n", argv[2], strerror(errno));
			return 125;
		}
		execvp(argv[3], argv + 3);
		fprintf(stderr, "seccomp_exec: %s: %s\n", argv[3], strerror(errno));
		return 125;
	}
	if (argc < 3 || (strcmp(argv[1], "EPERM") && strcmp(argv[1], "ENOSYS"))) {
		fprintf(stderr, "usage: seccomp_exec EPERM|ENOSYS PROGRAM [ARGS...]\n"
				"       seccomp_exec ALLOW NUMBERS-FILE PROGRAM [ARGS...]\n");
		return 125;
	}
	err = strcmp(argv[1], "EPERM") ? ENOSYS : EPERM;
	if (install(err) != 0) {
		fprintf(stderr, "seccomp_exec: cannot install the filter: %s\n",
			strerror(errno));
		return 125;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "seccomp_exec: %s: %s\n", argv[2], strerror(errno));
	return 125;
}
