/* kshim.h - a user-space stand-in for the few kernel APIs the runtime's
 * maps and statistics use, so that they build and run as host unit
 * tests: allocation, per-CPU data with a settable current CPU, atomics.
 */
#ifndef TAPIR_KSHIM_H
#define TAPIR_KSHIM_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#ifndef noinline
#define noinline	__attribute__((noinline))
#endif
#define READ_ONCE(x)	(*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define EXPORT_SYMBOL(sym)
#define __percpu

#ifndef ENODATA
#define ENODATA 61
#endif

/* ---- allocation: malloc, with an optional failure after N calls ---- */

#define GFP_KERNEL 0
#define __GFP_RETRY_MAYFAIL 0
#define __GFP_NOWARN 0
/* the kernel log: silent, the tests fail allocations on purpose */
#define pr_err(...) do { } while (0)

/* Tests set this to n > 0 to make the n-th allocation from now fail. */
static int kshim_fail_alloc;

static inline void *kshim_alloc(size_t size)
{
	if (kshim_fail_alloc > 0 && --kshim_fail_alloc == 0)
		return NULL;
	return calloc(1, size ? size : 1);
}

static inline void *kvzalloc(size_t size, int gfp)
{
	(void)gfp;
	return kshim_alloc(size);
}

static inline void *kvcalloc(size_t n, size_t size, int gfp)
{
	(void)gfp;
	if (size && n > SIZE_MAX / size)
		return NULL;
	return kshim_alloc(n * size);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

#define kzalloc kvzalloc
#define kcalloc kvcalloc
#define kfree kvfree

/* ---- CPUs: NR_CPUS of them, all possible; tests pick the current one */

#define NR_CPUS 4
#define nr_cpu_ids NR_CPUS
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < NR_CPUS; (cpu)++)

static int kshim_cpu;

static inline void kshim_set_cpu(int cpu)
{
	kshim_cpu = cpu;
}

#define smp_processor_id() (kshim_cpu)
#define get_cpu() (kshim_cpu)
#define put_cpu() do { } while (0)

/* A per-CPU area is NR_CPUS copies laid out one after the other; the
 * first word before them remembers the copy size.
 */
static inline void *__alloc_percpu(size_t size, size_t align)
{
	size_t *p;

	(void)align;
	size = (size + 15) & ~(size_t)15;
	p = kshim_alloc(16 + size * NR_CPUS);
	if (!p)
		return NULL;
	*p = size;
	return (char *)p + 16;
}

static inline void *kshim_per_cpu(const void *base, int cpu)
{
	size_t size = *(const size_t *)((const char *)base - 16);

	return (char *)base + size * cpu;
}

#define per_cpu_ptr(base, cpu) \
	((__typeof__(base))kshim_per_cpu((base), (cpu)))
#define this_cpu_ptr(base) per_cpu_ptr(base, kshim_cpu)
#define get_cpu_ptr(base) this_cpu_ptr(base)
#define put_cpu_ptr(base) do { (void)(base); } while (0)

static inline void free_percpu(void *base)
{
	if (base)
		free((char *)base - 16);
}

/* ---- atomics, arithmetic and strings ---- */

typedef struct {
	int64_t counter;
} atomic64_t;

static inline void atomic64_set(atomic64_t *a, int64_t v)
{
	a->counter = v;
}

static inline int64_t atomic64_read(const atomic64_t *a)
{
	return a->counter;
}

static inline int64_t atomic64_inc_return(atomic64_t *a)
{
	return ++a->counter;
}

static inline int64_t div64_s64(int64_t a, int64_t b)
{
	return a / b;
}

static inline uint64_t div64_u64(uint64_t a, uint64_t b)
{
	return a / b;
}

static inline int fls64(uint64_t x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

#define min_t(type, a, b) ((type)(a) < (type)(b) ? (type)(a) : (type)(b))
#define max_t(type, a, b) ((type)(a) > (type)(b) ? (type)(a) : (type)(b))

static inline long strscpy(char *dst, const char *src, size_t size)
{
	size_t n = strnlen(src, size);

	if (!size)
		return -E2BIG;
	if (n == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, n + 1);
	return (long)n;
}

/* ---- the runtime's print buffer (stp_print.h), for tests that define
 * KSHIM_FAKE_PRINT: output collects in one growing buffer.
 */
#ifdef KSHIM_FAKE_PRINT
static char *kshim_out;
static size_t kshim_out_len, kshim_out_cap;

static inline void _stp_print_n(const char *s, size_t n)
{
	if (kshim_out_len + n + 1 > kshim_out_cap) {
		kshim_out_cap = (kshim_out_len + n + 1) * 2;
		kshim_out = realloc(kshim_out, kshim_out_cap);
		if (!kshim_out)
			abort();
	}
	memcpy(kshim_out + kshim_out_len, s, n);
	kshim_out_len += n;
	kshim_out[kshim_out_len] = '\0';
}

static inline void _stp_print(const char *s)
{
	_stp_print_n(s, strlen(s));
}

static inline void _stp_print_char(char c)
{
	_stp_print_n(&c, 1);
}

/* The text printed since the last call (valid until the next print). */
static inline const char *kshim_output(void)
{
	static char empty[1];

	kshim_out_len = 0;
	return kshim_out ? kshim_out : empty;
}

static inline void kshim_output_free(void)
{
	free(kshim_out);
	kshim_out = NULL;
	kshim_out_len = kshim_out_cap = 0;
}
#endif

#endif
