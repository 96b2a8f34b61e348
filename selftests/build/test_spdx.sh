#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every source file says its licence in its first lines, and the user ABI
# header carries the syscall note that lets non-GPL programs include it, as
# upstream's uapi headers do.

. "$(dirname "$0")/../lib.sh"

# no_spdx: the tracked sources without an SPDX line in their first 3 lines.
no_spdx() {
	local f missing=0

	while read -r f; do
		if ! head -n 3 "$RDS_ROOT/$f" | grep -q 'SPDX-License-Identifier: '; then
			echo "no SPDX line: $f"
			missing=1
		fi
	done < <(cd "$RDS_ROOT" && find net include uapi tools selftests bench \
			-type f \( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' \
			-o -name Kbuild \) | sort)
	return $missing
}

uapi_note() {
	head -n 1 "$RDS_ROOT/uapi/linux/rds.h" |
		grep -qx '/\* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note \*/'
}

ktap_plan 2
ktap_test "every source file has an SPDX line" no_spdx
ktap_test "uapi/linux/rds.h: GPL-2.0 WITH Linux-syscall-note" uapi_note
ktap_finished
