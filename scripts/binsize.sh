#!/bin/sh
# What each dependency adds to npyflow's binary: binsize.sh BINARY [N]
# sums the sizes of the symbols (code and data; `go tool nm -size`) of an
# unstripped ELF binary by module (the first three path elements of a
# non-standard package, "std" for the standard library, "go:func.*" for
# the compiler's function metadata) and prints the N largest (default 25)
# in MB, with the file's size. Symbols in zero-filled sections (.bss,
# .noptrbss: the FIPS DRBG's 32 MB buffer, for one) take no room in the
# file and are left out. Symbol sizes also leave out the runtime tables
# (pclntab, type links) that grow with the code, so the sum is less than
# the file. What a module really costs is the difference between stripped
# builds with and without it: a sum of symbols misses what a module keeps
# alive elsewhere (one reachable reflect.Method call keeps every exported
# method of the binary; see grpcnotrace in the Makefile).
set -eu
bin=${1:?usage: binsize.sh BINARY [N]}
n=${2:-25}
# The zero-filled sections, "address size" in hex.
nobits=$(readelf -SW "$bin" | awk '
/ NOBITS / {
	for (i = 1; i <= NF; i++) if ($i == "NOBITS") break
	print $(i + 1), $(i + 3)
}')
go tool nm -size "$bin" | awk -v n="$n" -v file="$(stat -c %s "$bin")" -v nobits="$nobits" '
function pad(h) {
	# h as 16 lowercase hex digits, so that addresses compare as strings
	h = sprintf("%16s", tolower(h)); gsub(/ /, "0", h)
	return h
}
function hexadd(a, b,    i, c, s, d, digits) {
	# a + b for 16-digit lowercase hex strings
	digits = "0123456789abcdef"; c = 0; s = ""
	for (i = 16; i >= 1; i--) {
		d = index(digits, substr(a, i, 1)) + index(digits, substr(b, i, 1)) - 2 + c
		c = int(d / 16); s = substr(digits, d % 16 + 1, 1) s
	}
	return s
}
BEGIN {
	nr = split(nobits, line, "\n")
	for (i = 1; i <= nr; i++) {
		split(line[i], f, " ")
		lo[i] = pad(f[1]); hi[i] = hexadd(lo[i], pad(f[2]))
	}
}
NF >= 4 {
	addr = pad($1)
	for (i = 1; i <= nr; i++) if (addr >= lo[i] && addr < hi[i]) next
	size = $2; name = $4
	if (name ~ /^go:func\./) { sum["go:func.*"] += size; total += size; next }
	sub(/^(type:\*?|go:itab\.\*?|go:info\.)/, "", name)
	sub(/^\*?\(?\*?/, "", name)
	slash = 0
	# the package path ends at the first "." after the last "/"
	if (match(name, /^.*\//)) { slash = RLENGTH }
	rest = substr(name, slash + 1)
	dot = index(rest, ".")
	pkg = (dot > 0) ? substr(name, 1, slash + dot - 1) : name
	split(pkg, el, "/")
	key = (el[1] ~ /\./) ? el[1] "/" el[2] "/" el[3] : "std"
	sub(/\/+$/, "", key)
	sum[key] += size; total += size
}
END {
	printf "%-50s %8.2f MB\n", "file", file / 1e6
	printf "%-50s %8.2f MB\n", "all symbols", total / 1e6
	for (k in sum) printf "%-50s %8.2f MB\n", k, sum[k] / 1e6 | "sort -k2 -rn | head -" n
}'
