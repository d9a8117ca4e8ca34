# Sourced by the install scripts (install-gnugo.sh, install-node.sh, slurm-local.sh): one
# way to install system packages, through sudo when not run as root.

# apt_install ARG...: `apt-get update`, then `apt-get install -y ARG...` without prompts.
apt_install() {
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "$@"
}

# install_package "APT PACKAGES" BREW_FORMULA HINT: with apt-get where there is one, else
# with Homebrew, else fail with "no apt-get or brew: HINT".
install_package() {
    if command -v apt-get >/dev/null 2>&1; then
        # the package list is meant to split into words
        # shellcheck disable=SC2086
        apt_install $1
    elif command -v brew >/dev/null 2>&1; then
        brew install "$2"
    else
        echo "no apt-get or brew: $3" >&2
        exit 1
    fi
}
