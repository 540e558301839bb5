/*
 * gbroot: the test guest's init builds the root the agent and the desktop share with it, in one process
 * (a busybox mount or mkdir costs a process start, ~20-40 ms each under TCG). build.sh compiles it
 * (gcc -static) into the initramfs.
 *
 *   gbroot base NEWROOT             a tmpfs at NEWROOT with its own /proc, /sys, /dev (devtmpfs, devpts,
 *                                   shm), /tmp and /run: enough for the agent to start in
 *   gbroot host LOWER RW NEWROOT    each top-level directory of LOWER (the host's /, read-only) as an
 *                                   overlay at NEWROOT/NAME with its upper layer in RW/NAME; symlinks
 *                                   (bin -> usr/bin) as they are; proc, sys, dev, tmp and run (the guest's
 *                                   own) and plain files left out. Mounts below NEWROOT reach processes
 *                                   already chrooted there; one overlay over NEWROOT itself would not.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int failed;

static void must(int ok, const char *what, const char *path) {
	if (!ok) {
		fprintf(stderr, "gbroot: %s %s: %s\n", what, path, strerror(errno));
		failed = 1;
	}
}

static void dir(const char *path, mode_t mode) {
	must(mkdir(path, mode) == 0 || errno == EEXIST, "mkdir", path);
}

static void mnt(const char *src, const char *target, const char *type, const char *opts) {
	must(mount(src, target, type, 0, opts) == 0, "mount", target);
}

static int base(const char *root) {
	char p[PATH_MAX];
	static const struct {
		const char *dir, *type, *opts;
		mode_t mode;
	} m[] = {
		{"proc", "proc", NULL, 0555},
		{"sys", "sysfs", NULL, 0555},
		{"dev", "devtmpfs", NULL, 0755},
		{"dev/pts", "devpts", "mode=620,ptmxmode=666", 0755},
		{"dev/shm", "tmpfs", "mode=1777", 01777},
		{"tmp", "tmpfs", "mode=1777", 01777},
		{"run", "tmpfs", "mode=0755", 0755},
	};
	mnt("tmpfs", root, "tmpfs", "mode=0755");
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", root, m[i].dir);
		dir(p, m[i].mode);
		mnt(m[i].type, p, m[i].type, m[i].opts);
	}
	return failed;
}

static int host(const char *lower, const char *rw, const char *root) {
	DIR *d = opendir(lower);
	must(d != NULL, "open", lower);
	if (d == NULL)
		return 1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *n = e->d_name;
		if (n[0] == '.' || !strcmp(n, "proc") || !strcmp(n, "sys") || !strcmp(n, "dev") || !strcmp(n, "tmp") ||
		    !strcmp(n, "run"))
			continue;
		char src[PATH_MAX], dst[PATH_MAX], up[PATH_MAX], work[PATH_MAX], opts[4 * PATH_MAX], target[PATH_MAX];
		struct stat st;
		snprintf(src, sizeof src, "%s/%s", lower, n);
		snprintf(dst, sizeof dst, "%s/%s", root, n);
		if (lstat(src, &st) != 0) {
			must(0, "stat", src);
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t l = readlink(src, target, sizeof target - 1);
			must(l >= 0, "readlink", src);
			if (l < 0)
				continue;
			target[l] = '\0';
			must(symlink(target, dst) == 0, "symlink", dst);
		} else if (S_ISDIR(st.st_mode)) {
			snprintf(up, sizeof up, "%s/%s", rw, n);
			dir(up, 0755);
			snprintf(up, sizeof up, "%s/%s/upper", rw, n);
			snprintf(work, sizeof work, "%s/%s/work", rw, n);
			dir(up, 0755);
			dir(work, 0755);
			/* The overlay's top directory shows the upper layer's owner and mode: the host directory's. */
			must(chown(up, st.st_uid, st.st_gid) == 0, "chown", up);
			must(chmod(up, st.st_mode & 07777) == 0, "chmod", up);
			dir(dst, 0755);
			snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s", src, up, work);
			mnt("overlay", dst, "overlay", opts);
		}
	}
	closedir(d);
	return failed;
}

int main(int argc, char **argv) {
	if (argc == 3 && !strcmp(argv[1], "base"))
		return base(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "host"))
		return host(argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: gbroot base NEWROOT | gbroot host LOWER RW NEWROOT\n");
	return 2;
}
