/* stp_nesting.h - the kernel stack that a handler's script function
 * calls may use.  Each call is a C call on the kernel stack (the locals
 * live in the context, but the return address and saved registers do
 * not), so a deep recursion would run off the stack whatever MAXNESTING
 * says.  Every call therefore checks the stack pointer itself against a
 * floor fixed when the handler makes its first call.
 *
 * Why a measure at run time and not a per-call figure from the build
 * (gcc -fstack-usage): the figure depends on what gcc inlines and how
 * it spills, on the kernel's flags and on the sanitizers; the stack
 * pointer is the truth on every kernel.  The check costs a compare per
 * call.  What it cannot see is the stack used below the last check: one
 * function's frame and the runtime it calls, which the floor's margin
 * (MINSTACKSPACE on the task stack, the rest of the stack elsewhere)
 * covers; the runtime keeps no MAXSTRINGLEN buffer on the stack.
 */
#ifndef STP_NESTING_H
#define STP_NESTING_H

#include <linux/preempt.h>
#include <linux/sched/task_stack.h>

#include "stp_limits.h"

/* The lowest stack pointer at which a handler entered at sp may make
 * another call.  On the task's stack (whatever the context: a kprobe's
 * int3 runs there as an NMI) it is MAXCALLSTACK below sp and never
 * within MINSTACKSPACE of the bottom.  Other stacks (interrupt, NMI,
 * exception) have no bound a module can read: there the budget alone
 * holds, a quarter of it in an NMI, whose stack is 4 KiB on x86_64.
 */
static __always_inline unsigned long _stp_call_floor(unsigned long sp)
{
	unsigned long base = (unsigned long)task_stack_page(current);
	unsigned long budget = MAXCALLSTACK;
	unsigned long floor;

	if (sp > base && sp - base < THREAD_SIZE) {
		floor = sp - budget;
		return max(floor, base + MINSTACKSPACE);
	}
	if (in_nmi())
		budget /= 4;
	return sp > budget ? sp - budget : 0;
}

/* Whether the handler may call one more function: the first call of a
 * handler (nesting 0) fixes the floor from the handler's own frame.
 */
static __always_inline bool _stp_call_room(struct context *c)
{
	unsigned long sp = current_stack_pointer;

	if (!c->nesting)
		c->stack_floor = _stp_call_floor(sp);
	return sp >= c->stack_floor;
}

#endif
