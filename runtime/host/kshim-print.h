/* kshim-print.h - user-space stand-ins for the kernel services that the
 * print, string and regex runtime files use, so their unit tests build
 * on the host.  Every definition is guarded so that this file can sit
 * next to kshim.h (the map code's shim) and either may come first.
 */
#ifndef STP_KSHIM_PRINT_H
#define STP_KSHIM_PRINT_H

#if defined(__has_include)
#if __has_include("kshim.h")
#include "kshim.h"
#endif
#endif

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef likely
#define likely(x)	__builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x)	__builtin_expect(!!(x), 0)
#endif
#ifndef __user
#define __user
#endif
#ifndef __percpu
#define __percpu
#endif
#ifndef PAGE_SIZE
#define PAGE_SIZE 4096UL
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef GFP_KERNEL
#define GFP_KERNEL 0
#endif

#ifdef TAPIR_KSHIM_H
/* kshim.h has allocation and per-CPU data: add what it lacks, in its
 * terms (its per-CPU areas carry a header that per_cpu_ptr reads).
 */
#ifndef alloc_percpu
#define alloc_percpu(type) \
	((type __percpu *)__alloc_percpu(sizeof(type), __alignof__(type)))
#endif
#ifndef kmalloc
#define kmalloc(n, gfp)		kvzalloc((n), (gfp))
#endif
#ifndef kvmalloc_node
#define kvmalloc_node(n, gfp, node)	kvzalloc((n), (gfp))
#endif
#define stp_shim_set_cpu(cpu)	kshim_set_cpu(cpu)

#else /* !TAPIR_KSHIM_H */

/* The kernel's fixed-size types, as the runtime headers use them (C11
 * allows the same typedef twice, should kshim.h follow).
 */
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

/* Memory: the runtime only allocates at init and exit. */
#ifndef kmalloc
#define kmalloc(n, gfp)		malloc(n)
#endif
#ifndef kzalloc
#define kzalloc(n, gfp)		calloc(1, (n))
#endif
#ifndef kfree
#define kfree(p)		free(p)
#endif
#ifndef kvzalloc
#define kvzalloc(n, gfp)	calloc(1, (n))
#endif
#ifndef kvmalloc_node
#define kvmalloc_node(n, gfp, node)	malloc(n)
#endif
#ifndef kvfree
#define kvfree(p)		free(p)
#endif

/* CPUs: a test may switch to another with stp_shim_set_cpu(). */
#ifndef STP_SHIM_NR_CPUS
#define STP_SHIM_NR_CPUS 4
#endif
static int stp_shim_cpu __attribute__((unused));
#define stp_shim_set_cpu(cpu)	(stp_shim_cpu = (cpu))
#ifndef nr_cpu_ids
#define nr_cpu_ids STP_SHIM_NR_CPUS
#endif
#ifndef smp_processor_id
#define smp_processor_id()	(stp_shim_cpu)
#endif
#ifndef for_each_possible_cpu
#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < STP_SHIM_NR_CPUS; (cpu)++)
#endif
#ifndef alloc_percpu
#define alloc_percpu(type) \
	((type *)calloc(STP_SHIM_NR_CPUS, sizeof(type)))
#endif
#ifndef free_percpu
#define free_percpu(p)		free(p)
#endif
#ifndef per_cpu_ptr
#define per_cpu_ptr(p, cpu)	(&(p)[(cpu)])
#endif
#ifndef this_cpu_ptr
#define this_cpu_ptr(p)		per_cpu_ptr((p), smp_processor_id())
#endif

#endif /* TAPIR_KSHIM_H */

#ifndef raw_cpu_ptr
#define raw_cpu_ptr(p)		this_cpu_ptr(p)
#endif
#ifndef cpu_to_node
#define cpu_to_node(cpu)	0
#endif

/* Fault-safe copies.  A test declares which addresses are "mapped" by
 * setting the ranges below ([lo, hi), empty by default); a copy that
 * touches anything else fails as the kernel's would.
 */
static unsigned long stp_shim_kmem_lo __attribute__((unused));
static unsigned long stp_shim_kmem_hi __attribute__((unused));
static unsigned long stp_shim_umem_lo __attribute__((unused));
static unsigned long stp_shim_umem_hi __attribute__((unused));

static inline long stp_shim_copy_nofault(void *dst, unsigned long src,
					 size_t n, unsigned long lo,
					 unsigned long hi)
{
	if (src < lo || src > hi || n > hi - src)
		return -EFAULT;
	memcpy(dst, (const void *)src, n);
	return 0;
}

#ifndef copy_from_kernel_nofault
static inline long stp_shim_copy_from_kernel_nofault(void *dst,
						     const void *src, size_t n)
{
	return stp_shim_copy_nofault(dst, (unsigned long)src, n,
				     stp_shim_kmem_lo, stp_shim_kmem_hi);
}
#define copy_from_kernel_nofault stp_shim_copy_from_kernel_nofault
#endif

#ifndef copy_from_user_nofault
static inline long stp_shim_copy_from_user_nofault(void *dst,
						   const void __user *src,
						   size_t n)
{
	return stp_shim_copy_nofault(dst, (unsigned long)src, n,
				     stp_shim_umem_lo, stp_shim_umem_hi);
}
#define copy_from_user_nofault stp_shim_copy_from_user_nofault
#endif

#endif
