#!/bin/sh
# errkb-hook.sh LOGFILE [URL]: a training job's on-failure hook (see docs/hook.md).
#
# Sends the tail of LOGFILE, gzip-compressed, to errkb and prints its plain-text
# answer. It never hangs the job (3 s to connect, 8 s a try, about 20 s in all)
# and never fails it: whatever happens, it exits 0, with one line on stderr
# when errkb had no answer. A busy errkb (503, 429) is asked twice more after
# its Retry-After, only while that fits in 12 s. Needs only sh, tail, gzip and
# curl (7.66 or later honours Retry-After).
#
#   ERRKB_URL         errkb's base URL when no URL argument is given (default http://127.0.0.1:8000)
#   ERRKB_TAIL_BYTES  bytes from the end of the log to send (default 2097152)
#   ERRKB_LANG        en or zh (default: the server's)

log=${1:-}
url=${2:-${ERRKB_URL:-http://127.0.0.1:8000}}
tail_bytes=${ERRKB_TAIL_BYTES:-2097152}
query="format=text"
[ -n "${ERRKB_LANG:-}" ] && query="$query&lang=$ERRKB_LANG"

if [ -z "$log" ] || [ ! -r "$log" ]; then
  echo "errkb: no readable log given (usage: errkb-hook.sh LOGFILE [URL]); job unaffected" >&2
  exit 0
fi

base=${url%/}
if answer=$(tail -c "$tail_bytes" "$log" | gzip -c | curl --silent --fail \
    --connect-timeout 3 --max-time 8 --retry 2 --retry-max-time 12 \
    -H "Content-Encoding: gzip" -H "Content-Type: text/plain" -H "User-Agent: errkb-hook/1" \
    --data-binary @- "$base/api/v1/match?$query"); then
  # errkb without a public URL answers relative links ("see: /articles/x"): make them whole
  printf '%s\n' "$answer" | sed -e "s|: /r/|: $base/r/|" -e "s|: /articles/|: $base/articles/|" \
    -e "s|: /unmatched|: $base/unmatched|"
else
  echo "errkb: no answer from $url; job unaffected" >&2
fi
exit 0
