#!/usr/bin/env bash
# Download bounds against misbehaving mirrors (scripts/stall_server.py), for
# scripts/fault-inject.sh or by hand. Each scenario fetches OHSUMED QueryLevelNorm (whose files
# have sizes in datasets/letor3.toml) from a local server into a fresh data cache, with the
# default timeouts unless the scenario says otherwise, while a watcher records the largest size
# each partial download reaches. Prints one line per scenario, then a total:
#
#   scenario  exit  seconds  bytes-past-bound  hang
#
# bytes-past-bound: over all partial downloads, the most bytes a file held beyond the bound of
# its address (the file's manifest size plus 0.1% and 64 KiB for a .gz; the size for a plain
# file); hang: 1 when the fetch was still running after 60 s (it is then killed).
#
# Usage: scripts/download-bounds.sh LTR_BINARY [WORK_DIR]
set -u
ltr=${1:?usage: $0 LTR_BINARY [WORK_DIR]}
work=${2:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$work"
cd "$work" || exit 2

# name, server mode, extra flags
scenarios=(
    "endless|endless|"
    "huge-length|huge|"
    "trickle-min-speed-0|trickle|--min-speed 0 --max-time 20"
    "silent|silent|"
    "header-trickle|headers|"
)

# The bound of every mirror address of OHSUMED QueryLevelNorm, by partial-file name
# (sha256 of the address, first 16 hex digits, then the last path segment: the cache's naming).
bounds() {
    local base=$1 line file size url id bound
    sed -n '/^\[datasets.variants.size\]/,/^$/p' "$root/datasets/letor3.toml" | head -16 | tail -15 |
        while read -r line; do
            file=$(echo "$line" | cut -d'"' -f2)
            size=$(echo "$line" | awk '{print $3}')
            for suffix in .gz ""; do
                url="$base/letor3/OHSUMED/QueryLevelNorm/$file$suffix"
                id=$(printf %s "$url" | sha256sum | cut -c1-16)
                if [ -n "$suffix" ]; then bound=$(( size + size / 1000 + 65536 )); else bound=$size; fi
                echo "$id-$(basename "$file")$suffix.part $bound"
            done
        done
}

total_past=0
total_hangs=0
printf '%-22s %4s %8s %16s %4s\n' scenario exit seconds bytes-past-bound hang
for s in "${scenarios[@]}"; do
    IFS='|' read -r name mode flags <<< "$s"
    rm -f "port.$name"
    python3 "$root/scripts/stall_server.py" "port.$name" "$mode" &
    server=$!
    for _ in $(seq 100); do [ -s "port.$name" ] && break; sleep 0.1; done
    base="http://127.0.0.1:$(cat "port.$name")"
    data="$work/data-$name"
    rm -rf "$data"
    bounds "$base" > "bounds.$name"
    # Largest size seen of each partial download.
    (
        while :; do
            for f in "$data"/.downloads/mirror/*.part; do
                [ -f "$f" ] && echo "$(basename "$f") $(stat -c %s "$f" 2> /dev/null || echo 0)"
            done
            sleep 0.01
        done
    ) > "sizes.$name" &
    watcher=$!
    start=$(date +%s%N)
    # shellcheck disable=SC2086
    LTR_DATA_DIR="$data" LTR_MIRROR="" timeout 60 "$ltr" fetch letor3 --datasets OHSUMED \
        --mirror "$base" $flags > "out.$name" 2> "err.$name"
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    kill "$watcher" "$server" 2> /dev/null
    wait "$watcher" "$server" 2> /dev/null
    hang=0
    [ "$rc" = 124 ] && hang=1
    past=$(awk 'NR == FNR { bound[$1] = $2; next }
                { b = ($1 in bound) ? bound[$1] : 0; over = $2 - b; if (over > max) max = over }
                END { print max + 0 }' "bounds.$name" "sizes.$name")
    total_past=$(( total_past + past ))
    total_hangs=$(( total_hangs + hang ))
    printf '%-22s %4s %8s %16s %4s\n' "$name" "$rc" "$(( ms / 1000 )).$(( ms % 1000 / 100 ))" "$past" "$hang"
done
printf '%-22s %4s %8s %16s %4s\n' total "" "" "$total_past" "$total_hangs"
[ "$total_past" = 0 ] && [ "$total_hangs" = 0 ]
