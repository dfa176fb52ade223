/* stp_deref.h - the fault-safe reads that embedded C written for the
 * established tool calls by its names: kread(), kderef(),
 * kderef_buffer(), DEREF_FAULT() and CATCH_DEREF_FAULT().  Each read
 * goes through _stp_kread(); a fault raises "kernel read fault at
 * 0x..." and jumps to the function's fault label: the point where the
 * code says CATCH_DEREF_FAULT() (so that what follows it, an unlock,
 * still runs), else the function's end (the translator puts the label
 * there for code that reads this way without catching).
 */
#ifndef STP_DEREF_H
#define STP_DEREF_H

#include "stp_probe.h"

/* Raise the fault at addr and leave for the fault label. */
#define DEREF_FAULT(addr) do {						\
		_stp_error_fmt(CONTEXT, CONTEXT->last_stmt,		\
			       "kernel read fault at 0x%lx",		\
			       (unsigned long)(addr));			\
		goto _stp_deref_fault;					\
	} while (0)

/* Where a fault of the reads above it lands; the code after it runs. */
#define CATCH_DEREF_FAULT() if (0) { _stp_deref_fault: __maybe_unused; }

/* The object ptr points to (a scalar or a pointer), read from kernel
 * memory.
 */
#define kread(ptr) ({							\
		__unqual_scalar_typeof(*(ptr)) _stp_kr_v;		\
		if (_stp_kread(&_stp_kr_v, (unsigned long)(ptr),	\
			       sizeof(_stp_kr_v)))			\
			DEREF_FAULT(ptr);				\
		_stp_kr_v;						\
	})

/* The size (1, 2, 4 or 8) bytes at addr, zero-extended. */
#define kderef(size, addr) ({						\
		uint64_t _stp_kd_v = 0;					\
		if ((size) > sizeof(_stp_kd_v) ||			\
		    _stp_kread(&_stp_kd_v, (unsigned long)(addr), (size))) \
			DEREF_FAULT(addr);				\
		(int64_t)_stp_kd_v;					\
	})

/* Check that n bytes at addr can be read, and copy them to dst unless
 * dst is NULL.
 */
static inline int _stp_kderef_buffer(void *dst, unsigned long addr,
				     size_t n)
{
	unsigned char scratch[64];
	size_t done, k;

	if (dst)
		return _stp_kread(dst, addr, n);
	for (done = 0; done < n; done += k) {
		k = min_t(size_t, n - done, sizeof(scratch));
		if (_stp_kread(scratch, addr + done, k))
			return -EFAULT;
	}
	return 0;
}

#define kderef_buffer(dst, addr, n) do {				\
		if (_stp_kderef_buffer((dst), (unsigned long)(addr), (n))) \
			DEREF_FAULT(addr);				\
	} while (0)

#endif
