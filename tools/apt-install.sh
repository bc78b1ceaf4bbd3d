# Sourced by the tools/*-setup.sh scripts: installs Debian packages non-interactively, as root or
# through passwordless sudo, retrying once after `apt-get update`. The caller defines
# `die MESSAGE` (one line on stderr, exit non-zero) and `log` (where apt-get's output goes).
#
#   apt_install WHAT PACKAGE...   WHAT names what is missing, for the messages
apt_install() {
    local what=$1
    shift
    command -v apt-get >/dev/null 2>&1 ||
        die "$what missing and apt-get not found (not Debian/Ubuntu): install $*"
    : >"$log" 2>/dev/null || die "cannot write the log file $log"
    local -a sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null ||
            die "$what missing and not root (no passwordless sudo): run 'apt-get install --no-install-recommends $*' as root"
        sudo=(sudo -n)
    fi
    local -a install=("${sudo[@]}" apt-get install -y -q --no-install-recommends "$@")
    if ! "${install[@]}" >>"$log" 2>&1; then
        "${sudo[@]}" apt-get update -q >>"$log" 2>&1
        "${install[@]}" >>"$log" 2>&1 || die "apt-get install $* failed (see $log)"
    fi
}
