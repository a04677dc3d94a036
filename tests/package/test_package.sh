#!/bin/bash
# The Debian package as an operator gets it: installed with apt into a fresh
# root of this machine's release (dependencies and all), and with dpkg into a
# throwaway root (dpkg --root, so the host's own package database is never
# touched), both programs print the package version, man finds the pages,
# bash completion loads from the installed files and completes options,
# --method values and file names, systemd-analyze verify accepts the
# installed unit and rates its sandbox "OK", and dpkg -r removes every file it installed (the package
# has no configuration files, which it would keep), dpkg -P the rest.
#   test_package.sh BUILD|DEB SOURCE
# BUILD: a configured and built tree, packed here with its cpack (a few
# seconds); DEB: a package made already (scripts/package).
set -u
target="$1"
SRC="$2"
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root="$tmp/root"

# expect NAME COMMAND...: COMMAND succeeds; its output is shown if not.
expect() {
	local name="$1"
	shift
	if "$@" >"$tmp/out" 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $name ($(tr '\n' ' ' <<<"$*" | cut -c 1-120))"
		sed 's/^/  | /' "$tmp/out"
	fi
}

# same EXPECTED ACTUAL: the two strings are equal.
same() {
	[ "$1" = "$2" ] || {
		echo "want: '$1'"
		echo " got: '$2'"
		return 1
	}
}

# has LIST WORD...: the comma- or space-separated LIST (a Depends field, the
# lines of a completion) holds every WORD as a whole item.
has() {
	local list word
	list=" $(tr ',\n' '  ' <<<"$1") "
	shift
	for word; do
		[[ $list == *" $word "* ]] || {
			echo "'$word' not in: $list"
			return 1
		}
	done
}

# the_deb: the .deb under test, packed from the build tree if needed.
the_deb() {
	if [ -d "$target" ]; then
		(cd "$target" && cpack -G DEB -B "$tmp/cpack" >"$tmp/cpack.log" 2>&1) ||
			{ cat "$tmp/cpack.log" >&2 && return 1; }
		ls "$tmp"/cpack/*.deb
	else
		echo "$target"
	fi
}

# in_root ARGS...: dpkg on the throwaway root. Maintainer scripts run
# outside a chroot (the root has no shell) with DPKG_ROOT set, which they
# take as "do nothing"; the dependencies are the host's, not the root's.
in_root() {
	local force=--force-script-chrootless
	[ "$(id -u)" = 0 ] || force+=,not-root
	dpkg --root="$root" "$force" "$@"
}

# status: dpkg's status of rpma-ship in the root, empty if it knows none.
status() { dpkg-query --root="$root" -W -f='${Status}' rpma-ship 2>/dev/null; }

# completion_of PROG: loads PROG's completion the way the first Tab does
# (bash-completion's loader, finding it by name under $XDG_DATA_DIRS, here
# only the root's usr/share), then prints `complete -p PROG` and the file
# that defined its function.
completion_of() {
	printf '%s\n' ". /usr/share/bash-completion/bash_completion" \
		"__load_completion $1" >"$tmp/bashrc"
	env -i HOME="$tmp" TERM=dumb PATH="$root/usr/bin:/usr/bin:/bin" \
		XDG_DATA_DIRS="$root/usr/share" bash --rcfile "$tmp/bashrc" -ic \
		"complete -p $1 && shopt -s extdebug && declare -F _rpma_ship" 2>/dev/null |
		sed 's/^_rpma_ship [0-9]* /defined in /'
}

# complete_line LINE: the candidates the installed completion offers for
# LINE with the cursor at its end, sorted, one a line. The words are split
# as readline does (at spaces, = and :).
complete_line() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	(cd "$tmp/files" && env -i HOME="$tmp" PATH="$root/usr/bin:/usr/bin:/bin" bash --norc -c '
		. /usr/share/bash-completion/bash_completion
		. "$1"
		COMP_LINE=$2
		COMP_POINT=${#COMP_LINE}
		read -ra COMP_WORDS <<<"$(sed "s/[=:]/ & /g" <<<"$COMP_LINE")"
		[[ $COMP_LINE != *[\ =:] ]] || COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_rpma_ship "${COMP_WORDS[0]}" "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}" 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}" | sort' \
		_ "$root/usr/share/bash-completion/completions/rpma-send" "$1")
}

# completes LINE CANDIDATE...: LINE's candidates are exactly these.
completes() {
	local line="$1"
	shift
	same "$(printf '%s\n' "$@" | sort)" "$(complete_line "$line")"
}

# verify_unit: systemd-analyze verify on the installed unit. Its ExecStart
# and both ExecReload lines name /usr/bin/rpma-recv, which exists only in
# the root; --root would also look for the targets there. So this verifies
# a copy in which those three paths point into the root (the check that
# nothing else changed is below), with man looking in the root for
# Documentation=.
verify_unit() {
	mkdir -p "$tmp/unit"
	sed "s#^\(ExecStart\|ExecReload\)=/usr/bin/rpma-recv #\1=$root/usr/bin/rpma-recv #" \
		"$unit" >"$tmp/unit/rpma-recv.service"
	same 3 "$(diff "$unit" "$tmp/unit/rpma-recv.service" | grep -c '^>')" || return 1
	# A setting it cannot parse is only a warning ("..., ignoring"), with
	# exit status 0: any output at all fails here.
	local out
	out=$(MANPATH="$root/usr/share/man" systemd-analyze verify "$tmp/unit/rpma-recv.service" 2>&1) &&
		same "" "$out"
}

# linked_packages BINARY...: the packages (without :arch) that hold the
# libraries these binaries name as NEEDED, found where the dynamic loader
# finds them (ldd).
linked_packages() {
	local bin soname path
	for bin; do
		for soname in $(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }'); do
			path=$(ldd "$bin" | awk -v so="$soname" '$1 == so { print $3 }')
			[ -n "$path" ] || {
				echo "no path for $soname" >&2
				continue
			}
			dpkg -S "$path" 2>/dev/null || dpkg -S "$(realpath "$path")"
		done
	done | sed 's/:.*//' | sort -u | tr '\n' ' '
}

version=$(sed -n 's/^project(rpma-ship VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
[ -n "$version" ] || {
	echo "no project(rpma-ship VERSION ...) in $SRC/CMakeLists.txt"
	exit 1
}
deb=$(the_deb) || exit 1
expect "deb file name" same "rpma-ship_${version}_amd64.deb" "${deb##*/}"
expect "deb version" same "$version" "$(dpkg-deb -f "$deb" Version)"
expect "README installs this version" grep -F "sudo apt install ./build/package/rpma-ship_${version}_amd64.deb" "$SRC/README.md"

# Dependencies: the packages of the libraries the programs link, as this
# release names them (librdmacm1 and libssl3 on Debian 12, librdmacm1t64
# and libssl3t64 on Debian 13), each a package this host has (so the names
# are real), and the rxe provider as a recommendation.
depends=$(dpkg-deb -f "$deb" Depends | sed 's/ *([^)]*)//g')
dpkg-deb -x "$deb" "$tmp/unpacked"
linked=$(linked_packages "$tmp"/unpacked/usr/bin/rpma-send "$tmp"/unpacked/usr/bin/rpma-recv)
expect "Depends" has "$depends" $linked
expect "links what it should" has "$linked" libibverbs1 libpmem2 libpmemlog1 libxxhash0
for pkg in ${depends//,/ }; do
	expect "Depends: $pkg is a package of this host" dpkg-query -W "$pkg"
done
expect "Recommends" has "$(dpkg-deb -f "$deb" Recommends)" ibverbs-providers
expect "Recommends pmempool" has "$(dpkg-deb -f "$deb" Recommends)" pmdk-tools

# Contents, and no active configuration.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./||; s|/$||' | grep . >"$tmp/contents"
expect "contents" has "$(cat "$tmp/contents")" usr/bin/rpma-send usr/bin/rpma-recv \
	usr/share/man/man1/rpma-send.1.gz usr/share/man/man1/rpma-recv.1.gz \
	usr/share/man/man5/rpma-recv.conf.5.gz usr/share/man/man7/rpma-ship.7.gz \
	usr/lib/systemd/system/rpma-recv.service usr/lib/systemd/system/rpma-send@.service \
	usr/share/doc/rpma-ship/examples/rpma-recv.conf usr/share/doc/rpma-ship/copyright \
	usr/share/doc/rpma-ship/examples/60-rpma-ship-dax.rules usr/lib/sysusers.d/rpma-ship.conf \
	usr/share/doc/rpma-ship/changelog.gz \
	usr/share/bash-completion/completions/rpma-send usr/share/bash-completion/completions/rpma-recv
expect "nothing under /etc" same "" "$(grep '^etc' "$tmp/contents")"

# As an operator installs it: apt, with its dependencies from this
# release's archive, into a fresh minimal system of this machine's own
# release (mmdebstrap; about 30 s), where both programs then start. Needs
# root and the archive; skipped, and said so, without them; done for the
# .deb of scripts/package only.
apt_installs() {
	local release
	release=$(. /etc/os-release && echo "$VERSION_CODENAME")
	mmdebstrap --quiet --variant=apt \
		--hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
		--include="$(realpath "$deb")" \
		--customize-hook='chroot "$1" rpma-send --version' \
		--customize-hook='chroot "$1" rpma-recv --version' \
		"$release" "$tmp/fresh" 2>&1
}
if [ -d "$target" ]; then
	: # a test build's pack (ctest): scripts/package's .deb is the one apt gets
elif [ "$(id -u)" = 0 ] && command -v mmdebstrap >/dev/null; then
	expect "apt install into a fresh $(. /etc/os-release && echo "$PRETTY_NAME") root" apt_installs
	rm -rf "$tmp/fresh"
else
	echo "skipped: apt install into a fresh root (needs root and mmdebstrap)"
fi

# Install into an empty root.
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
expect "dpkg -i" in_root --force-depends -i "$deb"
expect "installed" same "install ok installed" "$(status)"
for gz in "$root"/usr/share/man/*/*.gz "$root/usr/share/doc/rpma-ship/changelog.gz"; do
	expect "${gz#"$root"} is gzip" gzip -t "$gz"
done

for prog in rpma-send rpma-recv; do
	expect "$prog --version" same "$prog $version (protocol versions 9 to 10)" \
		"$("$root/usr/bin/$prog" --version)"
	expect "man -w $prog" same "$root/usr/share/man/man1/$prog.1.gz" \
		"$(MANPATH="$root/usr/share/man" man -w "$prog")"
	expect "complete -p $prog" same "complete -F _rpma_ship $prog
defined in $root/usr/share/bash-completion/completions/$prog" "$(completion_of "$prog")"
done
expect "man -w rpma-recv.conf" same "$root/usr/share/man/man5/rpma-recv.conf.5.gz" \
	"$(MANPATH="$root/usr/share/man" man -w rpma-recv.conf)"
expect "man -w rpma-ship.7" same "$root/usr/share/man/man7/rpma-ship.7.gz" \
	"$(MANPATH="$root/usr/share/man" man -w 7 rpma-ship)"

mkdir -p "$tmp/files/dir"
touch "$tmp/files/app.log" "$tmp/files/key"
expect "complete --me" completes "rpma-send --me" --method=
expect "complete --method" completes "rpma-send --method " apm flush gpspm staged
expect "complete --method=s" completes "rpma-send --method=s" staged
expect "complete --verify=" completes "rpma-send --verify=" hash read
expect "complete --auth-key" completes "rpma-send --auth-key k" key
expect "complete send FILE" completes "rpma-send --batch 1M host " app.log dir key
expect "complete send FILE with --verify" completes "rpma-send --verify a" app.log
expect "complete recv --crea" completes "rpma-recv --crea" --create=
expect "complete recv SIZE" completes "rpma-recv --create " ""
expect "complete recv POOL" completes "rpma-recv -c 1G " app.log dir key
expect "complete recv options" has "$(complete_line "rpma-recv --")" --allow= --auth-key= \
	--busy-poll --create= --credits= --direct-write-to-pmem --info --listen= --once \
	--staging-slot= --help --version

unit="$root/usr/lib/systemd/system/rpma-recv.service"
expect "unit runs the installed rpma-recv" grep '^ExecStart=/usr/bin/rpma-recv ' "$unit"
expect "unit is dist/rpma-recv.service" cmp "$SRC/dist/rpma-recv.service" "$unit"
expect "systemd-analyze verify" verify_unit
# The sandbox, as systemd rates it: "OK" is below 4 (the threshold is in
# tenths); it was 8.4 "EXPOSED" as root with no sandbox.
expect "systemd-analyze security: OK" systemd-analyze security --offline=true --threshold=39 \
	"$tmp/unit/rpma-recv.service"
expect "unit runs as rpma-ship" grep -x 'User=rpma-ship' "$unit"
# The sender's template: as shipped, naming the installed rpma-send,
# always with --resume -f; an instance verifies, and rates "OK" too.
send_unit="$root/usr/lib/systemd/system/rpma-send@.service"
expect "template is dist/rpma-send@.service" cmp "$SRC/dist/rpma-send@.service" "$send_unit"
expect "template runs the installed rpma-send --resume -f" \
	grep '^ExecStart=/usr/bin/rpma-send --resume -f ' "$send_unit"
verify_send_unit() {
	sed "s#^ExecStart=/usr/bin/rpma-send #ExecStart=$root/usr/bin/rpma-send #" \
		"$send_unit" >"$tmp/unit/rpma-send@.service"
	local out
	out=$(MANPATH="$root/usr/share/man" systemd-analyze verify "$tmp/unit/rpma-send@app.service" 2>&1) &&
		same "" "$out"
}
expect "systemd-analyze verify rpma-send@app" verify_send_unit
expect "systemd-analyze security rpma-send@app: OK" systemd-analyze security --offline=true \
	--threshold=39 "$tmp/unit/rpma-send@app.service"
expect "sysusers.d creates rpma-ship" grep -q '^u rpma-ship - ' "$root/usr/lib/sysusers.d/rpma-ship.conf"

# Remove: no configuration files to keep, so every path the package brought
# is gone; then purge.
expect "no conffiles" same "" "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles 2>/dev/null)"
expect "dpkg -r" in_root -r rpma-ship
left=$(cd "$root" && while read -r path; do
	[ ! -e "$path" ] || echo "$path"
done <"$tmp/contents")
expect "dpkg -r removed everything" same "" "$left"
expect "nothing else left" same "var" "$(ls "$root")"
# dpkg keeps the package's name and postrm until a purge, to run it then.
expect "removed" same "deinstall ok config-files" "$(status)"
expect "dpkg -P" in_root -P rpma-ship
expect "purged" same "" "$(status)"

printf '%s passed, %s failed\n' "$passed" "$failed"
[ "$failed" = 0 ]
