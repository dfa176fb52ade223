/* stp_uframe.h - the frames of a user-space .return probe that reads
 * values saved at entry: preallocated per probe, held from a task's
 * entry to its return and found again by task and stack pointer.
 */
#ifndef STP_UFRAME_H
#define STP_UFRAME_H

struct task_struct;
struct stp_uframes;
struct stp_uframe;

/* MAXURETPROBE_FRAMES frames of data_size bytes each (at init, may
 * sleep); NULL when out of memory.  Freeing NULL does nothing.
 */
struct stp_uframes *_stp_uframes_new(size_t data_size);
void _stp_uframes_free(struct stp_uframes *fs);

/* At an entry of task t whose return will have stack pointer sp: a
 * frame to fill, or NULL when all are taken (the caller counts the
 * skip).  t's frames at or below sp never returned (a longjmp) and are
 * let go; when none is free, a frame of a task that has exited is.
 */
struct stp_uframe *_stp_uframe_claim(struct stp_uframes *fs,
				     struct task_struct *t, unsigned long sp);
/* The frame's data, data_size bytes. */
void *_stp_uframe_data(struct stp_uframes *fs, struct stp_uframe *f);
/* After filling f: ready for its return, or (the entry failed) free. */
void _stp_uframe_done(struct stp_uframes *fs, struct stp_uframe *f,
		      bool ready);
/* At a return of t with stack pointer sp: the ready frame its entry
 * filled, held until _stp_uframe_done(..., false); NULL when there is
 * none (the entry was skipped or failed).  t's frames below sp are
 * left over from a longjmp and let go.
 */
struct stp_uframe *_stp_uframe_find(struct stp_uframes *fs,
				    struct task_struct *t, unsigned long sp);

#endif
