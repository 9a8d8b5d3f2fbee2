#!/usr/bin/env bash
# make sam-local: `sam build`, then `sam local invoke` for every event file of every function and `sam local start-api`
# for the query routes, against the local stack's emulators, with the results compared to events/expected/ (check.py).
#
# Docker: a daemon of its own, from Debian's docker.io unpacked into tools/docker (apt-get download + dpkg-deb, no
# system install), started inside a network namespace this script creates (unshare --net): its bridge, the
# containers, the emulators and the port SAM publishes exist only there, so nothing listens on the machine's
# interfaces. The daemon is stopped by its PID. The java21 base image is a stand-in built here (Dockerfile); no image
# is ever pulled (--skip-pull-image, no registry lookup). Fails loudly when Docker cannot run; it never skips.
#
# run.sh --prepare only fetches and unpacks what needs the package registries (docker.io, the base image's root file
# system; about 1-2 min in a new clone, nothing once done): make test runs it beside its Maven build.
set -euo pipefail
ROOT=$(pwd)
HERE=$ROOT/scripts/sam-local
TOOLS=$ROOT/tools/docker
WORK=$ROOT/.local/sam-local
SAM=$ROOT/.venv/bin/sam
STANDIN=public.ecr.aws/lambda/java:21-x86_64
BASE=pulse-sam-local/trixie-jre21:base
# SAM passes the shell's credentials and region to the function, never --env-vars' (only declared variables): the
# local stack's, as DynamoDB Local keeps a database per access key and region.
export SAM_CLI_TELEMETRY=0 AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=local \
  AWS_SECRET_ACCESS_KEY=local
unset AWS_PROFILE AWS_SESSION_TOKEN
log() { printf '[sam-local %s] %s\n' "$(date +%T)" "$*" >&2; }

if [ -z "${PULSE_SAM_LOCAL_INNER:-}" ]; then
  # Outside the namespace: whatever needs the package registries (it has no route out).
  mkdir -p "$WORK" "$TOOLS"
  if [ ! -x "$TOOLS/root/usr/sbin/dockerd" ]; then
    log "unpacking Debian's docker.io and mmdebstrap into tools/docker"
    rm -rf "$TOOLS/deb" "$TOOLS/root" && mkdir -p "$TOOLS/deb"
    (cd "$TOOLS/deb" && apt-get download docker.io containerd runc tini mmdebstrap >/dev/null)
    for d in "$TOOLS"/deb/*.deb; do dpkg-deb -x "$d" "$TOOLS/root"; done
    rm -rf "$TOOLS/deb"
  fi
  # The base image's root file system: Debian trixie with openjdk-21-jre-headless (bookworm has only 17).
  if [ ! -s "$TOOLS/trixie-jre21.tar" ]; then
    log "building the trixie + openjdk-21-jre-headless root file system (mmdebstrap, about 2 min)"
    PATH=$TOOLS/root/usr/bin:$PATH "$TOOLS/root/usr/bin/mmdebstrap" --quiet --format=tar --variant=essential \
      --include=openjdk-21-jre-headless \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-exclude=/usr/share/locale/*' --setup-hook='mkdir -p "$1"/usr/share/man/man1' \
      trixie "$TOOLS/trixie-jre21.tar.part" http://deb.debian.org/debian
    mv "$TOOLS/trixie-jre21.tar.part" "$TOOLS/trixie-jre21.tar"
  fi
  if [ "${1:-}" = --prepare ]; then
    exit 0
  fi
  if [ "$(id -u)" != 0 ]; then
    log "FAILED: needs root (a dockerd of its own in a network namespace of its own); run it as root"
    exit 1
  fi
  # The runtime interface client at the version the project pins (root pom), with its dependencies.
  ric=$(sed -n '/<artifactId>aws-lambda-java-runtime-interface-client<\/artifactId>/{n;s/.*<version>\(.*\)<\/version>.*/\1/p}' pom.xml)
  core=$(sed -n 's/.*<lambda-core.version>\(.*\)<\/lambda-core.version>.*/\1/p' pom.xml)
  sdk=$(sed -n 's/.*<awssdk.version>\(.*\)<\/awssdk.version>.*/\1/p' pom.xml)
  rm -rf "$WORK/image" "$WORK/mvn.log" && mkdir -p "$WORK/image/lib"
  cp "$HERE/Dockerfile" "$HERE/bootstrap" "$WORK/image/"
  # From the local Maven repository when the build already fetched them (a Maven start each costs 10-30 s on a busy
  # machine), else through Maven from Maven Central.
  m2=$HOME/.m2/repository
  for a in "com.amazonaws:aws-lambda-java-runtime-interface-client:$ric" "com.amazonaws:aws-lambda-java-core:$core" \
    "com.amazonaws:aws-lambda-java-serialization:1.2.0" "software.amazon.awssdk:utils-lite:$sdk"; do
    IFS=: read -r group id version <<<"$a"
    jar="$m2/${group//.//}/$id/$version/$id-$version.jar"
    if [ -s "$jar" ]; then
      cp "$jar" "$WORK/image/lib/"
    else
      mvn -B -ntp -q -N dependency:copy -Dartifact="$a" -DoutputDirectory="$WORK/image/lib" \
        -Dmdep.overWriteReleases=true >>"$WORK/mvn.log" 2>&1 || { cat "$WORK/mvn.log" >&2; exit 1; }
    fi
  done
  log "sam build (Architecture=x86_64)"
  "$SAM" build --parameter-overrides Architecture=x86_64 >"$WORK/sam-build.log" 2>&1 \
    || { tail -40 "$WORK/sam-build.log" >&2; log "sam build failed"; exit 1; }
  if [ -s "$WORK/dockerd.pid" ] && kill -0 "$(cat "$WORK/dockerd.pid")" 2>/dev/null; then
    log "FAILED: the dockerd of an earlier make sam-local still runs (PID $(cat "$WORK/dockerd.pid")); stop it first"
    exit 1
  fi
  # Inside network and mount namespaces of its own (the daemon's mounts vanish with them), as root (dockerd needs it).
  exec unshare --net --mount --propagation private --fork -- env PULSE_SAM_LOCAL_INNER=1 "$0" "$@"
fi

ip link set lo up
export PATH=$TOOLS/root/usr/bin:$TOOLS/root/usr/sbin:$PATH
export DOCKER_HOST=unix://$WORK/docker.sock
rm -rf "$WORK/exec" && mkdir -p "$WORK/data" "$WORK/exec"
log "starting dockerd (Debian docker.io) in this namespace"
dockerd --data-root "$WORK/data" --exec-root "$WORK/exec" --pidfile "$WORK/dockerd.pid" -H "$DOCKER_HOST" \
  --storage-driver overlay2 --iptables=false --ip6tables=false --bip 172.31.254.1/24 >"$WORK/dockerd.log" 2>&1 &
dockerd_pid=$!
stack_pid=
# Everything this script started, by PID: the local stack, the containers (through the daemon), the daemon, and the
# containerd shims left by containers the daemon could not remove (their PIDs are in its state directory).
cleanup() {
  set +e
  if [ -n "$stack_pid" ]; then kill "$stack_pid" 2>/dev/null; wait "$stack_pid" 2>/dev/null; fi
  docker ps -aq 2>/dev/null | xargs -r docker rm -f >/dev/null 2>&1
  shims=$(cat "$WORK"/exec/containerd/daemon/io.containerd.runtime.v2.task/moby/*/shim.pid 2>/dev/null)
  kill "$dockerd_pid" 2>/dev/null; wait "$dockerd_pid" 2>/dev/null
  for p in $shims; do kill "$p" 2>/dev/null; done
  rm -f "$WORK/dockerd.pid"
}
trap cleanup EXIT
for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
docker info >/dev/null 2>&1 || { tail -20 "$WORK/dockerd.log" >&2; log "FAILED: dockerd did not start (Docker cannot run here)"; exit 1; }
for _ in $(seq 1 20); do ip -4 addr show docker0 2>/dev/null | grep -q 'inet 172.31.254.1/' && break; sleep 0.5; done
ip -4 addr show docker0 | grep -q 'inet 172.31.254.1/' || { log "FAILED: the daemon's bridge has no 172.31.254.1"; exit 1; }

# The stack starts while the images are imported and built (check.py waits for it).
log "starting the local stack's emulators (make run KEEP=1's fixed ports)"
java -XX:-UsePerfData --enable-native-access=ALL-UNNAMED -cp "local/target/classes:$(cat local/target/classpath.txt)" \
  dev.pulse.local.Main run --keep --duration 1 --rate 5 --ramp 0 --schedule-every 0 --work-dir "$WORK/stack" \
  >"$WORK/stack.log" 2>&1 &
stack_pid=$!

if ! docker image inspect "$BASE" >/dev/null 2>&1; then
  log "importing the base image $BASE"
  docker import "$TOOLS/trixie-jre21.tar" "$BASE" >/dev/null
fi
log "building the stand-in $STANDIN"
docker build -q --pull=false -t "$STANDIN" "$WORK/image" >/dev/null

"$ROOT/.venv/bin/python" "$HERE/check.py" --root "$ROOT" --work "$WORK" --gateway 172.31.254.1 --stack-log "$WORK/stack.log"
