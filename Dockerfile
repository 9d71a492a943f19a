# npyflow's container image: the static release binary alone, no shell, no
# libc, run as the non-root user npyflow (65532).
#
#   make image                       # builds ghcr.io/npyflow/npyflow:VERSION and :latest
#   podman run --rm -v "$PWD:/data" ghcr.io/npyflow/npyflow convert in.npy out.parquet
#
# The build context is dist/image, laid out by scripts/image-context.sh
# (make image-context): rootfs/ is the image's whole file tree, the binary
# built with CGO_ENABLED=0 -trimpath and the version stamped in, /etc/passwd
# and /etc/group naming the user, the CA bundle for https, /tmp; owned/ holds
# /data, the working directory, owned by the user.
FROM scratch
COPY rootfs/ /
COPY --chown=65532:65532 owned/ /
USER 65532:65532
WORKDIR /data
ENV TMPDIR=/tmp
ENTRYPOINT ["/usr/local/bin/npyflow"]
CMD ["version"]
