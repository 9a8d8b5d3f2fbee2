#!/usr/bin/env bash
# Makes DIR/chromium, a headless-capable Chromium for the HTML report tests, without root: the machine's
# /usr/bin/chromium if it has one, otherwise Debian's chromium package and the libraries it needs that this machine
# lacks, fetched with apt-get download and unpacked with dpkg-deb into DIR. Prints the wrapper's path.
# Usage: scripts/install-chromium.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/install-chromium.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [[ -x /usr/bin/chromium ]]; then
  printf '#!/bin/sh\nexec /usr/bin/chromium "$@"\n' > "$dir/chromium"
  chmod +x "$dir/chromium"
  echo "$dir/chromium"
  exit 0
fi
mkdir -p "$dir/debs" "$dir/root"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
# Depends of a package (virtual packages, shown as <name>, are left out: something already here provides them).
depends() { apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances "$1" \
  | awk '/^ *\|?Depends:/ && $2 !~ /^</ {print $2}' | sort -u; }

# Breadth-first over the packages not installed here; desktop integration (portals, xdg-utils) is not needed headless.
queue=(chromium chromium-common)
declare -A seen=()
while ((${#queue[@]})); do
  pkg=${queue[0]}; queue=("${queue[@]:1}")
  [[ -n ${seen[$pkg]:-} ]] && continue
  seen[$pkg]=1
  case $pkg in xdg-desktop-portal*|xdg-utils|x11-utils|libc6|libgcc-s1) continue ;; esac
  if [[ $pkg != chromium* ]] && installed "$pkg"; then continue; fi
  if ! ls "$dir/debs/${pkg}_"*.deb >/dev/null 2>&1; then
    (cd "$dir/debs" && apt-get download -q "$pkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
  fi
  deb=$(ls "$dir/debs/${pkg}_"*.deb 2>/dev/null | head -1 || true)
  [[ -n $deb ]] || { echo "install-chromium: could not download $pkg" >&2; exit 1; }
  dpkg-deb -x "$deb" "$dir/root"
  while read -r dep; do [[ -n $dep ]] && queue+=("$dep"); done < <(depends "$pkg")
done

bin="$dir/root/usr/lib/chromium/chromium"
libs="$dir/root/usr/lib/x86_64-linux-gnu:$dir/root/usr/lib/x86_64-linux-gnu/pulseaudio:$dir/root/usr/lib/chromium"
missing=$(LD_LIBRARY_PATH=$libs ldd "$bin" | awk '/not found/ {print $1}')
if [[ -n $missing ]]; then echo "install-chromium: libraries still missing: $missing" >&2; exit 1; fi
# A wrapper that finds the unpacked libraries.
cat > "$dir/chromium" <<WRAP
#!/bin/sh
LD_LIBRARY_PATH="$libs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$bin" "\$@"
WRAP
chmod +x "$dir/chromium"
"$dir/chromium" --version >&2
rm -rf "$dir/debs"
echo "$dir/chromium"
