/* stp_lines.c - the source file and line of a kernel or user address,
 * from the tables of stp_lines.h.  Probe context: a binary search and
 * the decoding of a few rows, no allocation.
 */
#include "stp_lines.h"


static unsigned long _stp_uleb(const unsigned char **p,
			       const unsigned char *end)
{
	unsigned long v = 0;
	int shift = 0;

	while (*p < end) {
		unsigned char b = *(*p)++;

		if (shift < BITS_PER_LONG)
			v |= (unsigned long)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static long _stp_sleb(const unsigned char **p, const unsigned char *end)
{
	unsigned long v = 0;
	int shift = 0;
	unsigned char b = 0;

	while (*p < end) {
		b = *(*p)++;
		if (shift < BITS_PER_LONG)
			v |= (unsigned long)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < BITS_PER_LONG && (b & 0x40))
		v |= ~0UL << shift;
	return (long)v;
}

/* The file and line of the row of t that holds addr: 0, or -ENOENT. */
static int _stp_lines_at(const struct stp_lines *t, unsigned long addr,
			 const char **file, int *line)
{
	unsigned int lo = 0, hi = t->nchk, mid;
	const unsigned char *p, *end = t->rows + t->len;
	unsigned long a, delta;
	unsigned int f;
	int l;

	while (lo < hi) {	/* first checkpoint past addr */
		mid = lo + (hi - lo) / 2;
		if (t->chk[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	a = t->chk[lo - 1].addr;
	f = t->chk[lo - 1].file;
	l = t->chk[lo - 1].line;
	p = t->rows + t->chk[lo - 1].pos;
	while (p < end) {
		unsigned int nf = f;

		delta = _stp_uleb(&p, end);
		if (delta & 1)
			nf = _stp_uleb(&p, end);
		if (a + (delta >> 1) > addr)
			break;
		a += delta >> 1;
		f = nf;
		l += _stp_sleb(&p, end);
	}
	if (l <= 0)
		return -ENOENT;
	*file = t->files[f];
	*line = l;
	return 0;
}

/* Whether k is a function of mod, as kallsyms names it ("kernel" or
 * the module's name).
 */
static bool _stp_kline_in(const struct stp_kline *k, const char *mod)
{
	return k->mod ? mod && !strcmp(k->mod, mod) :
		!mod || !strcmp(mod, "kernel");
}

/* The function name of mod, of those with lines, that kallsyms sizes
 * ksize bytes: its symbol's size up to the alignment padding after it.
 */
static const struct stp_kline *_stp_kline_of(const char *name,
					     const char *mod,
					     unsigned long ksize)
{
	const struct stp_kline *kl = stp_script.klines, *fit = NULL;
	unsigned int n = stp_script.nklines, lo = 0, hi = n, mid, i;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(kl[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* static functions may share a name: the size tells them apart */
	for (i = lo; i < n && !strcmp(kl[i].name, name); i++) {
		if (!_stp_kline_in(&kl[i], mod))
			continue;
		if (kl[i].size == ksize)
			return &kl[i];
		if (kl[i].size <= ksize && (!fit || kl[i].size > fit->size))
			fit = &kl[i];
	}
	return fit;
}

int _stp_line_lookup(unsigned long addr, struct task_struct *task,
		     const char **file, int *line)
{
	const struct stp_kline *k;
	struct _stp_umap m;
	struct _stp_sym sym;

	if (task) {
		if (_stp_umap_find(task, addr, &m) || !m.obj ||
		    !m.obj->lines)
			return -ENOENT;
		return _stp_lines_at(m.obj->lines, m.offset, file, line);
	}
	if (!stp_script.nklines || _stp_sym_lookup(addr, NULL, &sym) ||
	    !sym.name)
		return -ENOENT;
	k = _stp_kline_of(sym.name, sym.module, sym.size);
	if (!k || sym.offset >= k->size)
		return -ENOENT;
	return _stp_lines_at(k->lines, k->base + sym.offset, file, line);
}
