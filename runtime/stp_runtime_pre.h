/* stp_runtime_pre.h - what a generated module includes first: the
 * kernel headers the runtime and the generated code use, and the
 * limits (after any -D overrides from the command line).
 */
#ifndef STP_RUNTIME_PRE_H
#define STP_RUNTIME_PRE_H

#include <linux/module.h>
#include <linux/version.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/uaccess.h>
#include <linux/math64.h>
#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/kprobes.h>
#include <asm/irq_regs.h>

#include "stp_limits.h"

/* Embedded C written for the established tool tests the language
 * version it builds for: STAP_VERSION(5, 1) is 0x501, and
 * STAP_COMPAT_VERSION is the version --compatible asked for (the
 * script's C defines it then), else the one tapir follows (5.1, as
 * systemtap_v in the preprocessor).
 */
#define STAP_VERSION(a, b) (((a) << 8) + (b))
#ifndef STAP_COMPAT_VERSION
#define STAP_COMPAT_VERSION STAP_VERSION(5, 1)
#endif

/* Kernel functions that newer kernels removed but embedded C written
 * for older ones still calls (the STAPCONF_ facts say which are there).
 */
#ifndef STAPCONF_STRLCPY
/* the length of src, and at most size - 1 bytes of it copied to dst,
 * NUL-terminated when size is not 0
 */
static inline size_t __maybe_unused _stp_strlcpy(char *dst, const char *src,
						 size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
#define strlcpy _stp_strlcpy
#endif
/* fcheck_files() became files_lookup_fd_raw() in 5.11 */
#if defined(STAPCONF_FILES_LOOKUP_FD_RAW) && !defined(fcheck_files)
#include <linux/fdtable.h>
#define fcheck_files(files, fd) files_lookup_fd_raw(files, fd)
#endif

#endif
