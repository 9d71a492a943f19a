#!/bin/sh
# Lays out the container image's build context: image-context.sh BINARY DIR
# makes DIR/rootfs, the whole file tree of the image (the Dockerfile copies
# it into an empty FROM scratch image):
#
#   usr/local/bin/npyflow            the static linux binary
#   etc/passwd, etc/group            the non-root user npyflow (65532)
#   etc/ssl/certs/ca-certificates.crt  this machine's CA bundle, for https
#                                    to S3, GCS and Azure (omitted if absent)
#   tmp/                             1777, for spooled uploads
#
# and DIR/owned/data, the working directory /data, which the Dockerfile
# copies owned by 65532.
set -eu
bin=$1 dir=$2
[ -x "$bin" ] || { echo "image-context.sh: $bin: no such binary" >&2; exit 1; }
rm -rf "$dir"
root=$dir/rootfs
mkdir -p "$root/usr/local/bin" "$root/etc/ssl/certs" "$root/tmp" "$dir/owned/data"
cp "$bin" "$root/usr/local/bin/npyflow"
chmod 0755 "$root/usr/local/bin/npyflow"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnpyflow:x:65532:65532:npyflow:/data:/sbin/nologin\n' >"$root/etc/passwd"
printf 'root:x:0:\nnpyflow:x:65532:\n' >"$root/etc/group"
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
	cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
else
	echo "image-context.sh: warning: no /etc/ssl/certs/ca-certificates.crt; the image will lack CA certificates" >&2
fi
chmod 1777 "$root/tmp"
chmod 0755 "$dir/owned/data"
