#!/usr/bin/env bash
# The system libraries Qt needs on a bare Debian/Ubuntu machine, plus CJK fonts and Xvfb
# (for a real window on a headless machine). Safe to run again.
set -euo pipefail
command -v apt-get >/dev/null || { echo "install-deps: no apt-get here; install Qt's libraries (EGL, GL, xkbcommon, fontconfig, dbus, glib) and a CJK font yourself" >&2; exit 0; }
run=""; [ "$(id -u)" -eq 0 ] || run="sudo"
export DEBIAN_FRONTEND=noninteractive
$run apt-get update -qq
$run apt-get install -y -qq --no-install-recommends \
    libegl1 libgl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0 fonts-noto-cjk \
    xvfb libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 \
    libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 >/dev/null
