/* The step list shared by script.c (builders) and peer.c (the runner). */
#ifndef SHB_HARNESS_SCRIPT_INTERNAL_H
#define SHB_HARNESS_SCRIPT_INTERNAL_H

#include "harness/script.h"

enum shb_hstep_kind {
	HSTEP_EXPECT_BYTES,
	HSTEP_EXPECT_EXACT,
	HSTEP_EXPECT_UNTIL,
	HSTEP_EXPECT_HEAD,
	HSTEP_EXPECT_BODY,
	HSTEP_EXPECT_REQUEST,
	HSTEP_SEND,
	HSTEP_DELAY,
	HSTEP_STALL,
	HSTEP_CLOSE,
	HSTEP_RESET,
	HSTEP_CLOSE_IF_ASKED,
	HSTEP_REPEAT,
	HSTEP_CALL,
};

struct shb_hstep {
	enum shb_hstep_kind kind;
	uint8_t *data;    /* bytes to send, expect or search for (owned) */
	size_t len;       /* length of data */
	uint64_t n;       /* byte count, max, delay ms or repeat times */
	size_t target;    /* repeat: the step to jump to */
	shb_hscript_fn fn;
	void *arg;
};

struct shb_hscript {
	struct shb_hstep *steps;
	size_t count, cap;
	int broken;
};

#endif
