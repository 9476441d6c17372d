#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked GNOME Keyring, so the keychain
# tests talk to a real Secret Service without touching the keyring of the person running them.
#
#   bash scripts/with-keyring.sh npx vitest run --project integration
#
# Needs the Debian packages dbus and gnome-keyring (the README lists them).
set -euo pipefail

if [ -z "${SATCHEL_KEYRING_SESSION:-}" ]; then
  for tool in dbus-run-session gnome-keyring-daemon; do
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

# Inside the session: create and unlock the login keyring with a throwaway password.
printf '%s' 'satchel-test-keyring' | gnome-keyring-daemon --unlock --components=secrets --daemonize >/dev/null
"$@"
