/* providers/hwbkpt.c - hardware watchpoints: kernel.data(ADDR|"SYM")
 * and process.data(ADDR), .write or .rw, with .length(N) after an
 * address.  The handler runs at each access the debug registers catch,
 * through the kernel's hw_breakpoint API (runtime/stp_hwbkpt.c): on
 * every CPU for kernel data, in the target's threads (-c/-x) for a
 * process's.  No target variables.
 */
#include "../emit.h"
#include "../provider.h"
#include "../session.h"

#include <inttypes.h>
#include <string.h>

/* x86_64 has four debug address registers. */
#define HWBKPT_SLOTS 4
#define HWBKPT_MAX_LEN 8
/* Where x86_64's kernel half of the address space begins. */
#define KERNEL_START 0xffff800000000000ULL

struct hwbkpt_info {
	uint64_t addr;
	const char *symbol;		/* kernel.data("SYM"), else NULL */
	int len;			/* 1, 2, 4 or 8 */
	bool rw;			/* else write only */
	bool user;			/* process.data */
};

/* A length the debug registers take: the next of 1, 2, 4 and 8. */
static int round_len(int64_t n)
{
	int len = 1;

	while (len < n)
		len *= 2;
	return len;
}

static int count_hwbkpts(struct session *s, const struct provider *prov)
{
	int i, n = 0;

	for (i = 0; i < s->probes.n; i++) {
		const struct derived_probe *o = s->probes.items[i];

		if (o->prov == prov)
			n++;
	}
	return n;
}

/* kernel.data(0xADDR).length(N).rw: the canonical point, as pp()
 * shows it: the address in hex and the length always given.
 */
static const char *canon_name(struct arena *a, const struct hwbkpt_info *h)
{
	const char *root = h->user ? "process" : "kernel";
	const char *acc = h->rw ? "rw" : "write";

	if (h->symbol)
		return arena_printf(a, "%s.data(\"%s\").length(%d).%s", root,
				    h->symbol, h->len, acc);
	return arena_printf(a, "%s.data(0x%" PRIx64 ").length(%d).%s", root,
			    h->addr, h->len, acc);
}

static int check_addr(struct prov_ctx *c, const struct pp_comp *dc,
		      struct hwbkpt_info *h)
{
	int64_t v;

	if (!pp_arg_num(dc->arg, &v) || v == 0) {
		prov_error(c, dc->arg->loc, "a watchpoint needs a non-zero "
			   "address");
		return -1;
	}
	h->addr = (uint64_t)v;
	if (h->user && h->addr >= KERNEL_START) {
		prov_error(c, dc->arg->loc, "address 0x%" PRIx64 " is not a "
			   "user-space address", h->addr);
		return -1;
	}
	if (!h->user && h->addr < KERNEL_START) {
		prov_error(c, dc->arg->loc, "address 0x%" PRIx64 " is not a "
			   "kernel address (give one of /proc/kallsyms)",
			   h->addr);
		return -1;
	}
	if (h->addr & (uint64_t)(h->len - 1)) {
		prov_error(c, dc->arg->loc, "address 0x%" PRIx64 " is not "
			   "aligned to the watched length %d", h->addr,
			   h->len);
		return -1;
	}
	return 0;
}

/* The target kernel's configuration, when its build tree says. */
static int check_kernel(struct prov_ctx *c, const struct probe_point *pp)
{
	const struct kconfig *kc = c->s->kconfig;
	const char *v = kc ? kconfig_get(kc, "CONFIG_HAVE_HW_BREAKPOINT") :
			     "y";

	if (v && !strcmp(v, "y"))
		return 0;
	prov_error(c, pp->loc, "the target kernel has no hardware "
		   "breakpoints (CONFIG_HAVE_HW_BREAKPOINT is not set)");
	return -1;
}

static int hwbkpt_build(struct prov_ctx *c, struct derived_probe *dp)
{
	const struct probe_point *pp = dp->pp;
	const struct pp_comp *dc = pp_comp_of(pp, intern("data"));
	const struct pp_comp *lc = pp_comp_of(pp, intern("length"));
	struct hwbkpt_info *h = arena_alloc(c->s->arena, sizeof(*h));
	int64_t len = 1;

	if (check_kernel(c, pp))
		return -1;
	h->user = pp_comp_of(pp, intern("process")) != NULL;
	h->rw = pp_comp_of(pp, intern("rw")) != NULL;
	if (lc && (!pp_arg_num(lc->arg, &len) || len < 1 ||
		   len > HWBKPT_MAX_LEN)) {
		prov_error(c, lc->arg->loc, "a watchpoint's length must be "
			   "between 1 and %d bytes", HWBKPT_MAX_LEN);
		return -1;
	}
	h->len = round_len(len);
	if (pp_arg_kind(dc->arg) == PAT_STR) {
		if (h->user) {
			prov_error(c, dc->arg->loc, "process.data takes an "
				   "address, not a symbol name");
			return -1;
		}
		if (!*dc->arg->str) {
			prov_error(c, dc->arg->loc, "a watchpoint needs a "
				   "symbol name");
			return -1;
		}
		h->symbol = dc->arg->str;
	} else if (check_addr(c, dc, h)) {
		return -1;
	}
	if (h->user && !c->s->opt.target_cmd && !c->s->opt.target_pid) {
		prov_error(c, pp->loc, "process.data watches the target "
			   "process: give one with -c CMD or -x PID");
		return -1;
	}
	if (count_hwbkpts(c->s, dp->prov) == HWBKPT_SLOTS && !c->quiet)
		diag_warn(c->s, pp->loc, "more than %d hardware watchpoints: "
			  "x86_64 has %d debug registers, and the probes "
			  "beyond them will fail to register", HWBKPT_SLOTS,
			  HWBKPT_SLOTS);
	dp->name = intern(canon_name(c->s->arena, h));
	dp->priv = h;
	return 0;
}

static const char *hwbkpt_probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_HWBKPT";
}

static void hwbkpt_emit_group(struct emitter *em, struct vec *dps)
{
	struct strbuf *d = emit_out(em, EMIT_DECLS);
	int i;

	sb_printf(d, "static struct stp_hwbkpt stp_hwbkpts[%d] = {\n", dps->n);
	for (i = 0; i < dps->n; i++) {
		const struct derived_probe *dp = dps->items[i];
		const struct hwbkpt_info *h = dp->priv;

		sb_printf(d, "\t{ .addr = %#" PRIx64 "UL, .symbol = ",
			  h->addr);
		if (h->symbol)
			sb_c_string(d, h->symbol);
		else
			sb_puts(d, "NULL");
		sb_printf(d, ",\n\t  .len = %d, .rw = %s, .user = %s, "
			  ".probe = %s },\n", h->len,
			  h->rw ? "true" : "false",
			  h->user ? "true" : "false", emit_probe_ref(em, dp));
	}
	sb_puts(d, "};\n\n");
	sb_printf(emit_out(em, EMIT_START),
		  "\trc = _stp_hwbkpt_register(stp_hwbkpts, %d);\n", dps->n);
	sb_printf(emit_out(em, EMIT_STOP),
		  "\t_stp_hwbkpt_unregister(stp_hwbkpts, %d);\n", dps->n);
}

static const char *const hwbkpt_patterns[] = {
	"kernel.data({n,s}){.write,.rw}",
	"kernel.data(n).length(n){.write,.rw}",
	"process.data({n,s}){,.length(n)}{.write,.rw}",
	NULL
};

const struct provider hwbkpt_provider = {
	.name = "hwbkpt",
	.patterns = hwbkpt_patterns,
	.build = hwbkpt_build,
	.emit_group = hwbkpt_emit_group,
	.probe_type = hwbkpt_probe_type,
};
