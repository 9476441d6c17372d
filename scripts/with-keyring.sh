#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked GNOME Keyring, so the keychain
# tests talk to a real Secret Service without touching the keyring of the person running them.
#
#   bash scripts/with-keyring.sh npx vitest run --project integration
#
# The command starts only once the keyring owns the Secret Service's bus name
# (org.freedesktop.secrets): gnome-keyring-daemon --daemonize returns before it does, more often
# than not, and a first keychain call would then race the daemon's start. The script waits up to
# SATCHEL_KEYRING_WAIT_MS milliseconds (default 10000) for it, and if the name never has an
# owner it says so and exits 1 without running the command.
#
# It re-runs itself inside dbus-run-session with SATCHEL_KEYRING_SESSION=1 in the environment;
# unset that variable to nest a run of this script in a fresh session of its own.
#
# Needs the Debian packages dbus and gnome-keyring (the README lists them).
set -euo pipefail

wait_ms=${SATCHEL_KEYRING_WAIT_MS:-10000}
if ! [[ $wait_ms =~ ^[0-9]+$ ]]; then
  echo "with-keyring: SATCHEL_KEYRING_WAIT_MS must be a whole number of milliseconds, not '$wait_ms'; unset it to wait the default 10000" >&2
  exit 1
fi

if [ -z "${SATCHEL_KEYRING_SESSION:-}" ]; then
  for tool in dbus-run-session dbus-send gnome-keyring-daemon; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "with-keyring: $tool is not installed; run: sudo apt-get install dbus gnome-keyring libsecret-tools" >&2
      exit 1
    fi
  done
  keyring_home=$(mktemp -d)
  status=0
  # A fresh XDG_DATA_HOME gives the daemon its own empty login keyring.
  SATCHEL_KEYRING_SESSION=1 XDG_DATA_HOME="$keyring_home" \
    dbus-run-session -- bash "$0" "$@" || status=$?
  rm -rf "$keyring_home"
  exit "$status"
fi

# Whether org.freedesktop.secrets has an owner on the session bus. NameHasOwner does not start
# the service by D-Bus activation, so this sees the daemon started below and nothing else.
secrets_owned() {
  local reply
  reply=$(dbus-send --session --print-reply --reply-timeout=1000 --dest=org.freedesktop.DBus \
    / org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null) || return 1
  [[ $reply == *'boolean true'* ]]
}

now_ms() { date +%s%3N; }

# Inside the session: create and unlock the login keyring with a throwaway password.
if ! printf '%s' 'satchel-test-keyring' |
  gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null; then
  echo "with-keyring: gnome-keyring-daemon failed to start, so the command was not run; run 'dbus-run-session -- gnome-keyring-daemon --start --foreground --components=secrets' to see why" >&2
  exit 1
fi

deadline=$(($(now_ms) + wait_ms))
until secrets_owned; do
  if [ "$(now_ms)" -ge "$deadline" ]; then
    echo "with-keyring: gnome-keyring-daemon returned, but the Secret Service's bus name (org.freedesktop.secrets) had no owner within ${wait_ms} ms, so the command was not run. Check that $(command -v gnome-keyring-daemon) is GNOME Keyring's daemon with its secrets component: run 'dbus-run-session -- gnome-keyring-daemon --start --foreground --components=secrets' to see its errors. On a slow machine, wait longer with SATCHEL_KEYRING_WAIT_MS=30000." >&2
    exit 1
  fi
  sleep 0.05
done

"$@"
