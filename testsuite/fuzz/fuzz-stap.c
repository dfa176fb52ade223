/* fuzz-stap.c - the libFuzzer target for the translator front end: any
 * input as a user script through pass 1 and, when it parses, its -p1
 * text back through the parser and the tree through pass 2 against the
 * real tapset library.  No input may crash, leak or break round-trips.
 */
#include "diag.h"
#include "elab.h"
#include "target.h"
#include "parse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef TAPIR_SRCDIR
#define TAPIR_SRCDIR "."
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *data_dir(const char *env, const char *fallback)
{
	const char *v = getenv(env);

	return v && *v ? v : fallback;
}

/* The options stap's driver would set for "stap -p2 SCRIPT" on a fixed
 * target, so that results do not depend on the fuzzing host.
 */
static void session_init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	s->arena = arena_new();
	s->opt.last_pass = 2;
	s->opt.privilege = PRIV_STAPDEV;
	s->tapset_dir = data_dir("SYSTEMTAP_TAPSET", TAPIR_SRCDIR "/tapset");
	s->runtime_root = data_dir("SYSTEMTAP_RUNTIME",
				   TAPIR_SRCDIR "/runtime");
	s->kernel_v = "6.1.0";
	s->kernel_vr = "6.1.0-27-amd64";
	s->arch_name = "x86_64";
	diag_init(s);
}

static struct stapfile *parse_text(struct session *s, const char *text,
				   size_t len)
{
	struct srcfile *src = srcfile_new(s->arena, "<fuzz>", text, len);

	return parse_file(s, src, false);
}

/* Canonical -p1 text must parse again, to the same text. */
static void check_roundtrip(struct session *s, struct stapfile *f)
{
	struct strbuf first, second;

	sb_init(&first);
	sb_init(&second);
	print_file(&first, f);
	sb_putn(&first, "", 0);
	f = parse_text(s, first.buf, first.len);
	if (s->errors)
		__builtin_trap();	/* -p1 output that does not parse */
	print_file(&second, f);
	sb_putn(&second, "", 0);
	if (strcmp(first.buf, second.buf))
		__builtin_trap();	/* -p1 is not a fixed point */
	sb_free(&first);
	sb_free(&second);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session s;
	struct strbuf diags;
	char *text;

	session_init(&s);
	sb_init(&diags);
	diag_set_sink(&diags);
	text = arena_strndup(s.arena, (const char *)data, size);
	parse_load_macro_files(&s);
	s.user_file = parse_text(&s, text, size);
	vec_push(s.arena, &s.user_files, s.user_file);
	if (!s.errors) {
		check_roundtrip(&s, s.user_file);
		elaborate(&s);
	}
	diag_set_sink(NULL);
	sb_free(&diags);
	target_session_free(&s);
	arena_free(s.arena);
	intern_reset();
	return 0;
}
