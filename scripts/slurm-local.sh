#!/usr/bin/env bash
# A private single-node Slurm on this machine, for testing `fone sweep --slurm` scripts for real:
# Debian's slurm-wlm (slurmctld + slurmd) and munge, every file under one folder, its own ports and munge
# socket, nothing in /etc changed. Needs root (slurmd starts the jobs).
#   scripts/slurm-local.sh start DIR     installs slurm-wlm and munge when missing, starts the daemons, waits
#                                        until the node is idle; then: export SLURM_CONF=DIR/slurm.conf
#   scripts/slurm-local.sh stop DIR      stops them (by the pids they wrote under DIR)
# Exit 77 when it cannot run here (not root, no apt-get to install with).
set -euo pipefail
cmd="${1:-}"; dir="${2:-}"
if [[ -z "$cmd" || -z "$dir" ]]; then echo "usage: $0 start|stop DIR" >&2; exit 2; fi
mkdir -p "$dir"; dir="$(cd "$dir" && pwd)"

stop() {
    for f in slurmd slurmctld munged; do
        if [[ -f "$dir/$f.pid" ]]; then
            pid="$(cat "$dir/$f.pid")"
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            rm -f "$dir/$f.pid"
        fi
    done
}
if [[ "$cmd" == stop ]]; then stop; exit 0; fi
[[ "$cmd" == start ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

[[ "$(id -u)" == 0 ]] || { echo "slurm-local: needs root (slurmd runs the jobs)"; exit 77; }
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    command -v apt-get >/dev/null || { echo "slurm-local: no slurm-wlm and no apt-get"; exit 77; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >"$dir/apt.log" 2>&1 || {
        apt-get update -qq >>"$dir/apt.log" 2>&1 && \
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >>"$dir/apt.log" 2>&1
    } || { tail -n 5 "$dir/apt.log"; echo "slurm-local: cannot install slurm-wlm munge"; exit 77; }
fi
stop
host="$(hostname -s)"
cpus="$(nproc)"
mem_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
# Free ports near 16817 (not the default 6817/6818, in case a real Slurm is here).
port=$(( 16817 + RANDOM % 2000 ))
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
if [[ ! -f "$dir/munge/munge.key" ]]; then
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
fi
chmod 700 "$dir/munge"; chmod 400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed"
cat >"$dir/slurm.conf" <<CONF
ClusterName=fonelocal
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobRequeue=1
KillWait=10
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -i -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N "$host"
for _ in $(seq 60); do
    if sinfo -h -o '%t' 2>/dev/null | grep -qx idle; then
        echo "slurm-local: node $host idle ($cpus CPUs); export SLURM_CONF=$SLURM_CONF"
        exit 0
    fi
    sleep 0.5
done
echo "slurm-local: the node did not come up; logs: $dir/slurmctld.log $dir/slurmd.log" >&2
tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
exit 1
