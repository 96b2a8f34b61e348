#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rds-cost: 5
# rds-test: source-only
#
# Every source file says its licence in its first lines, and the user ABI
# header carries the syscall note that lets non-GPL programs include it, as
# upstream's uapi headers do.

. "$(dirname "$0")/../lib.sh"

# no_spdx: the tracked sources without an SPDX line in their first 3 lines.
# One awk over all of them: a process per file takes minutes on a KASAN
# guest.
no_spdx() {
	(cd "$RDS_ROOT" && find net include uapi tools selftests bench \
		-type f \( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' \
		-o -name Kbuild \) -print0 | sort -z |
		xargs -0 awk '
			FNR <= 3 && /SPDX-License-Identifier: / { ok[FILENAME] = 1 }
			END {
				for (i = 1; i < ARGC; i++)
					if (!(ARGV[i] in ok)) {
						print "no SPDX line: " ARGV[i]
						bad = 1
					}
				exit bad
			}')
}

uapi_note() {
	head -n 1 "$RDS_ROOT/uapi/linux/rds.h" |
		grep -qx '/\* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note \*/'
}

ktap_plan 2
ktap_test "every source file has an SPDX line" no_spdx
ktap_test "uapi/linux/rds.h: GPL-2.0 WITH Linux-syscall-note" uapi_note
ktap_finished
