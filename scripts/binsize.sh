#!/bin/sh
# What each dependency adds to npyflow's binary: binsize.sh BINARY [N]
# sums the sizes of the symbols (code and data; `go tool nm -size`) of an
# unstripped binary by module (the first three path elements of a
# non-standard package, "std" for the standard library) and prints the N
# largest (default 25) in MB, with the file's size. Symbol sizes leave out
# the runtime tables (pclntab, type links) that grow with the code, so the
# sum is less than the file.
set -eu
bin=${1:?usage: binsize.sh BINARY [N]}
n=${2:-25}
go tool nm -size "$bin" | awk -v n="$n" -v file="$(stat -c %s "$bin")" '
{
	size = $2; name = $4
	sub(/^(type:\*?|go:itab\.\*?|go:info\.)/, "", name)
	sub(/^\*?\(?\*?/, "", name)
	slash = 0; path = name
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
