#!/bin/sh
# A single-node Slurm cluster on this machine, from Debian's packages (slurm-wlm, munge),
# for trying akushu's generated cluster scripts (`akushu experiment plan --slurm`) and for
# the test that runs them (tests/cluster_scripts.rs).
#
#   sh scripts/slurm-local.sh install      # apt-get install slurm-wlm munge parallel
#   sh scripts/slurm-local.sh start DIR    # munged + slurmctld + slurmd, all state under DIR
#   export SLURM_CONF=DIR/slurm.conf       # then sbatch, squeue, scancel ... talk to it
#   sh scripts/slurm-local.sh stop DIR
#
# Containers often have no systemd and no writable cgroup tree, so the daemons are started
# directly as processes (their pid files are under DIR) and the configuration uses the
# plugins that need neither: proctrack/linuxproc (process tracking through /proc),
# task/none, no accounting. Everything (key, socket, state, spool, logs) lives under DIR,
# nothing is written to /etc. The daemons run as root (SlurmUser=root): start as root.
# The ports are the first free pair from 6817 up, so a second cluster can run beside.
set -eu

die() {
    echo "slurm-local: $*" >&2
    exit 1
}

# True when something listens on 127.0.0.1:$1.
port_busy() {
    bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

install_packages() {
    missing=""
    for tool in sbatch slurmctld slurmd munged parallel; do
        command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
    done
    if [ -z "$missing" ]; then
        echo "slurm-local: slurm-wlm, munge and GNU parallel already installed"
        return
    fi
    command -v apt-get >/dev/null 2>&1 || die "no apt-get: install slurm-wlm, munge and parallel (missing:$missing)"
    . "$(dirname "$0")/lib-install.sh"
    apt_install --no-install-recommends slurm-wlm munge parallel
}

# Writes DIR/slurm.conf for one node named after this host with all its CPUs.
write_conf() {
    dir=$1
    host=$(hostname -s)
    cpus=$(nproc)
    ctl_port=6817
    while port_busy "$ctl_port" || port_busy $((ctl_port + 1)); do
        ctl_port=$((ctl_port + 2))
    done
    cat >"$dir/slurm.conf" <<EOF
# Written by scripts/slurm-local.sh: a one-node cluster without systemd or cgroups.
ClusterName=akushu
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctl_port
SlurmdPort=$((ctl_port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

# Stops what was started so far and gives up: a failed start leaves no daemon behind.
fail_start() {
    stop "$dir" >/dev/null
    die "$@"
}

start() {
    dir=$1
    for tool in munged slurmctld slurmd sinfo; do
        command -v "$tool" >/dev/null 2>&1 || die "$tool not found: run 'sh scripts/slurm-local.sh install' first"
    done
    [ "$(id -u)" -eq 0 ] || die "the daemons run as root (SlurmUser=root): start as root"
    mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
    dir=$(cd "$dir" && pwd)
    chmod 700 "$dir/munge"
    [ -f "$dir/slurm.conf" ] || write_conf "$dir"

    if [ ! -f "$dir/munge/munge.key" ]; then
        dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
        chmod 400 "$dir/munge/munge.key"
    fi
    # --force: munged refuses sockets under a world-writable ancestor such as /tmp.
    munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
        --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
        --seed-file="$dir/munge/munge.seed" ||
        fail_start "munged did not start (see $dir/log/munged.log)"

    export SLURM_CONF="$dir/slurm.conf"
    # -i: ignore state left by an earlier run in DIR; both daemons fork into the background.
    slurmctld -i || fail_start "slurmctld did not start (see $dir/log/slurmctld.log)"
    slurmd || fail_start "slurmd did not start (see $dir/log/slurmd.log)"

    # Ready when the node reports idle (it registers a few seconds after slurmd starts).
    i=0
    until [ "$(sinfo -h -N -o %t 2>/dev/null)" = "idle" ]; do
        i=$((i + 1))
        if [ "$i" -ge 60 ]; then
            sinfo -N -l >&2 || true
            tail -5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
            fail_start "the node did not become idle within 30 s"
        fi
        sleep 0.5
    done
    echo "slurm-local: cluster up in $dir ($(sinfo -h -o '%D node, %c CPUs, partition %P')); export SLURM_CONF=$dir/slurm.conf"
}

# Stops the daemons whose pid files are under DIR (only those this script started).
stop() {
    dir=$1
    for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null || true
        i=0
        while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 50 ]; do
            i=$((i + 1))
            sleep 0.1
        done
        rm -f "$pidfile"
    done
    echo "slurm-local: stopped the cluster in $dir"
}

case "${1:-}" in
install) install_packages ;;
start) start "${2:?usage: slurm-local.sh start DIR}" ;;
stop) stop "${2:?usage: slurm-local.sh stop DIR}" ;;
*) die "usage: slurm-local.sh install | start DIR | stop DIR" ;;
esac
