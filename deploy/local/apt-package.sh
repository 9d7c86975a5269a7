# Sourced by deploy/local/gnubg.sh and chromium.sh: installs one Debian package the tests
# need, with apt-get as root or through sudo, and says why before it starts.
#
#   apt_package_ensure SCRIPT PACKAGE FIND OVERRIDE WHY
#     SCRIPT    the caller's name, for its messages
#     PACKAGE   the Debian package
#     FIND      a function that prints the program's path, or fails when it is missing
#     OVERRIDE  the environment variable that names a program of the user's own
#     WHY       what the program is for (said before installing, and when it cannot be)

apt_package_ensure() {
  local script="$1" package="$2" find="$3" override="$4" why="$5"
  if "${find}" >/dev/null; then
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "${script}: ${package} is missing and this is not a Debian/Ubuntu system; ${why}." >&2
    echo "  Install it with your package manager, or set ${override} to its path." >&2
    exit 1
  fi
  local sudo=""
  if [[ "$(id -u)" != 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "${script}: ${package} is missing; ${why}." >&2
      echo "  Install it as root: apt-get install --no-install-recommends ${package}" >&2
      echo "  (or set ${override} to a binary of your own)." >&2
      exit 1
    fi
    sudo="sudo"
  fi
  echo "${script}: installing Debian's ${package} package with ${sudo:+sudo }apt-get: ${why}." >&2
  echo "  Set ${override} to use one you installed yourself instead." >&2
  export DEBIAN_FRONTEND=noninteractive
  ${sudo} apt-get update -qq
  ${sudo} apt-get install -y -qq --no-install-recommends "${package}" >/dev/null
  "${find}" >/dev/null || { echo "${script}: ${package} still missing after apt-get" >&2; exit 1; }
  echo "${script}: installed $("${find}")" >&2
}
