"""The container engines a compose test runs under, and a stack of compose files.

    engine = engines_wanted()[0]          # CONTAINER_ENGINE=podman|docker, default both
    engine.start()                        # podman: nothing; Docker: a private dockerd
    engine.load_images(tags)              # Docker: the images podman built
    stack = Stack(engine, ["docker/compose.yaml", "docker/compose.ha.yaml"], env={...})
    problems = stack.unexpanded()         # values an engine would hand over as "${...}"
    stack.compose("up", "-d"); ...; stack.down()
    engine.stop()                         # Docker: dockerd stopped by PID, host put back

Podman is rootful podman with podman-compose 1.0.3, a test-local containers.conf
(runc, netavark, ulimits this machine can grant).  Docker is Debian's dockerd
20.10 started here with its own configuration, data root, exec root and API
socket (unix, private), so it neither needs nor touches a system daemon: no
iptables rules, no ip_forward, no default bridge, published ports on 127.0.0.1
through docker-proxy; with Debian's docker-compose 1.29.  HostState puts back
what either engine changes on the host (iptables chains, ip_forward, bridges).

Standard library only.  Secrets: every password a Stack is given is removed from
whatever it prints (redact()).
"""
import json
import os
import pathlib
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]

CONTAINERS_CONF = """[engine]
runtime = "runc"
[network]
network_backend = "netavark"
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
"""

# dockerd's own settings: nothing on the host's firewall or forwarding, no
# default bridge (compose makes its own networks), published ports on loopback
DOCKERD_CONFIG = {
    "iptables": False, "ip-forward": False, "ip-masq": False,
    "bridge": "none", "ip": "127.0.0.1", "userland-proxy": True,
    "log-driver": "json-file", "log-level": "warn", "features": {"buildkit": False},
}


class EngineProblem(Exception):
    """The engine cannot run here (the text says why)."""


class StepFailed(Exception):
    pass


def run(args, env=None, timeout=120, check=True, redact=lambda t: t, stdin=subprocess.DEVNULL):
    proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout, stdin=stdin)
    if check and proc.returncode != 0:
        raise StepFailed(f"{' '.join(map(str, args[:5]))}... exited {proc.returncode}: "
                         f"{redact(proc.stderr or proc.stdout)[-800:]}")
    return proc


def which(tool, *extra):
    return shutil.which(tool) or next((p for p in extra if os.path.exists(p)), None)


# ---------------------------------------------------------------- host state

class HostState:
    """What the engines may change on the host, snapshotted before and put back after."""

    TABLES = ("nat", "filter")
    OURS = ("NETAVARK", "DOCKER")

    def __init__(self):
        self.ip_forward = self.read_ip_forward()
        self.rules = {t: self.iptables(t) for t in self.TABLES}
        self.links = self.link_names()

    @staticmethod
    def read_ip_forward():
        return pathlib.Path("/proc/sys/net/ipv4/ip_forward").read_text().strip()

    @staticmethod
    def iptables(table):
        if not which("iptables", "/usr/sbin/iptables"):
            return []
        proc = subprocess.run(["iptables", "-t", table, "-S"], capture_output=True, text=True, timeout=30)
        return proc.stdout.splitlines()

    @staticmethod
    def link_names():
        proc = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, timeout=30)
        return {line.split(":")[1].strip().split("@")[0] for line in proc.stdout.splitlines() if ":" in line}

    def restore(self, others_running, links=()):
        """Undo what appeared since the snapshot: the bridges named in links
        (only ours: another test's daemon may have bridges of its own); the
        firewall and forwarding only when no other container runs on this host
        (another test's stack needs them)."""
        for name in (self.link_names() - self.links) & set(links):
            subprocess.run(["ip", "link", "delete", name], capture_output=True, timeout=30)
        if others_running:
            return
        for table in self.TABLES:
            now = self.iptables(table)
            added = [line for line in now if line not in self.rules[table] and any(o in line for o in self.OURS)]
            for rule in (line for line in added if line.startswith("-A ")):
                subprocess.run(["iptables", "-t", table, "-D", *shlex.split(rule)[1:]], capture_output=True, timeout=30)
            for chain in (line.split()[1] for line in added if line.startswith("-N ")):
                subprocess.run(["iptables", "-t", table, "-F", chain], capture_output=True, timeout=30)
                subprocess.run(["iptables", "-t", table, "-X", chain], capture_output=True, timeout=30)
            for policy in (line for line in self.rules[table] if line.startswith("-P ")):
                if policy not in now:
                    subprocess.run(["iptables", "-t", table, *policy.split()], capture_output=True, timeout=30)
        try:
            pathlib.Path("/proc/sys/net/ipv4/ip_forward").write_text(self.ip_forward + "\n")
        except OSError:
            pass

    def differences(self, others_running, links=()):
        """What is still different from the snapshot (empty when put back)."""
        out = []
        extra = sorted((self.link_names() - self.links) & (set(links) | {"docker0"}))
        if extra:
            out.append(f"links {extra}")
        if not others_running:
            if self.read_ip_forward() != self.ip_forward:
                out.append(f"ip_forward {self.read_ip_forward()} (was {self.ip_forward})")
            for table in self.TABLES:
                added = [l for l in self.iptables(table) if l not in self.rules[table] and any(o in l for o in self.OURS)]
                if added:
                    out.append(f"iptables -t {table}: {added[:4]}")
        return out


# ---------------------------------------------------------------- engines

class Engine:
    """One container engine and its compose implementation."""
    name = None

    def __init__(self, tmp):
        self.tmp = pathlib.Path(tmp)
        self.env = dict(os.environ)

    # what a Stack needs
    def cli(self):
        raise NotImplementedError

    def compose_cmd(self, project, files):
        raise NotImplementedError

    def container(self, project, service, n=1):
        return f"{project}_{service}_{n}"

    def network(self, project, name="default"):
        return f"{project}_{name}"

    def project_label(self, project):
        raise NotImplementedError

    def engine(self, *args, timeout=120, check=True, env=None):
        return run([*self.cli(), *args], env=env or self.env, timeout=timeout, check=check)

    def start(self):
        pass

    def stop(self):
        pass

    def note_bridges(self):
        pass

    def running_elsewhere(self):
        """True when some container not ours still runs on this host (any engine)."""
        return False

    def network_gateway(self, project):
        raise NotImplementedError


class Podman(Engine):
    name = "podman"

    def __init__(self, tmp):
        super().__init__(tmp)
        conf = self.tmp / "containers.conf"
        conf.write_text(CONTAINERS_CONF)
        self.env.update(CONTAINERS_CONF=str(conf), CONTAINER_ENGINE="podman")

    def problem(self):
        for tool in ("podman", "podman-compose", "runc"):
            if not which(tool, f"/usr/sbin/{tool}"):
                return f"{tool} is not installed (apt-get install -y podman podman-compose runc)"
        # without them podman falls back to CNI, whose networks have no DNS
        for helper in ("netavark", "aardvark-dns"):
            if not os.path.exists(f"/usr/lib/podman/{helper}"):
                return f"{helper} is not installed (apt-get install -y netavark aardvark-dns)"
        if os.geteuid() != 0:
            return "rootful podman is needed: run as root"
        proc = subprocess.run(["podman", "info", "--format", "{{.Host.OCIRuntime.Name}}"], env=self.env,
                              capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            return f"podman info failed: {proc.stderr.strip()[-300:]}"
        return None

    def cli(self):
        return ["podman"]

    def compose_cmd(self, project, files):
        return ["podman-compose", "-p", project, *[a for f in files for a in ("-f", str(f))]]

    def project_label(self, project):
        return f"io.podman.compose.project={project}"

    def running_elsewhere(self):
        # a conmon per running podman container, whatever its storage: ours are gone by now
        conmon = subprocess.run(["pgrep", "-x", "conmon"], capture_output=True, text=True, timeout=30)
        return bool(conmon.stdout.strip() or self.engine("ps", "-q", check=False).stdout.strip())

    def network_gateway(self, project):
        info = json.loads(self.engine("network", "inspect", self.network(project)).stdout)
        return info[0]["subnets"][0]["gateway"]


class Docker(Engine):
    """Debian's dockerd 20.10, started here and stopped by PID; docker-compose 1.29."""
    name = "docker"

    def __init__(self, tmp):
        super().__init__(tmp)
        # unix socket paths are short (108 bytes): the exec root gets a short name of its own
        self.exec_root = pathlib.Path(tempfile.mkdtemp(prefix="mcpn-dx-", dir="/tmp"))
        self.data_root = self.tmp / "docker-data"
        self.socket = self.exec_root / "api.sock"
        self.log_path = self.tmp / "dockerd.log"
        self.proc = None
        self.bridges = set()        # the bridges of the networks this daemon made (br-ID)
        self.pids = set()           # its containerd
        self.tmpfs = False          # the data root is a tmpfs of its own
        self.docker = which("docker", "/usr/bin/docker")
        # Debian's docker CLI (docker.io), which matches the daemon, before any other on the PATH
        if os.path.exists("/usr/bin/docker"):
            self.docker = "/usr/bin/docker"
        self.env.update(DOCKER_HOST=f"unix://{self.socket}", CONTAINER_ENGINE=self.docker or "docker",
                        COMPOSE_DOCKER_CLI_BUILD="0", DOCKER_BUILDKIT="0")

    def problem(self):
        for tool, package in (("dockerd", "docker.io"), ("docker-compose", "docker-compose"),
                              ("containerd", "containerd"), ("runc", "runc")):
            if not which(tool, f"/usr/sbin/{tool}", f"/usr/bin/{tool}"):
                return f"{tool} is not installed (apt-get install -y {package})"
        if not self.docker:
            return "the docker CLI is not installed (apt-get install -y docker.io)"
        if os.geteuid() != 0:
            return "dockerd needs root here: run as root"
        return None

    def cli(self):
        return [self.docker]

    def compose_cmd(self, project, files):
        return ["docker-compose", "-p", project, *[a for f in files for a in ("-f", str(f))]]

    def project_label(self, project):
        return f"com.docker.compose.project={project}"

    def network_gateway(self, project):
        info = json.loads(self.engine("network", "inspect", self.network(project)).stdout)
        return info[0]["IPAM"]["Config"][0]["Gateway"]

    def start(self, timeout=90):
        # the data root in memory: loading the images is faster, and removing
        # a gigabyte of layers at the end is an unmount instead of minutes of unlinks
        self.data_root.mkdir(mode=0o700)
        self.tmpfs = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4g,mode=0700", "mcpn-dockerd",
                                     str(self.data_root)], capture_output=True, timeout=30).returncode == 0
        config = self.tmp / "daemon.json"
        # networks from a /16 of their own, away from podman's 10.88-10.89 and
        # (most likely) from another test's daemon running at the same time
        pool = {"base": f"10.{100 + secrets.randbelow(100)}.0.0/16", "size": 24}
        config.write_text(json.dumps(dict(DOCKERD_CONFIG, **{"default-address-pools": [pool]})))
        log = self.log_path.open("w")
        self.proc = subprocess.Popen(
            [which("dockerd", "/usr/sbin/dockerd"), "--config-file", str(config), "--data-root", str(self.data_root),
             "--exec-root", str(self.exec_root), "--pidfile", str(self.exec_root / "dockerd.pid"),
             "-H", f"unix://{self.socket}"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=self.env, start_new_session=True)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise EngineProblem(f"dockerd exited {self.proc.returncode}: {self.log_tail()}")
            if self.engine("info", "--format", "{{.ServerVersion}}", check=False, timeout=30).returncode == 0:
                return
            time.sleep(0.5)
        raise EngineProblem(f"dockerd did not answer within {timeout} s: {self.log_tail()}")

    def log_tail(self, n=1200):
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        lines = [l for l in text.splitlines() if "level=error" in l or "level=fatal" in l or "failed" in l]
        return " | ".join(lines)[-n:] or text[-n:]

    def containerd_pid(self):
        try:
            return int((self.exec_root / "containerd" / "containerd.pid").read_text().strip())
        except (OSError, ValueError):
            return None

    def note_bridges(self):
        """Remember the bridge of every network this daemon has (to remove them if it does not)."""
        out = self.engine("network", "ls", "-q", "--no-trunc", "--filter", "driver=bridge", check=False).stdout
        self.bridges |= {"br-" + n[:12] for n in out.split()}

    def stop(self):
        """dockerd by its PID (SIGTERM, then SIGKILL), then its containerd, mounts, dirs."""
        shim = self.containerd_pid()
        if shim:
            self.pids.add(shim)
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(45)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(15)
        if shim and _alive(shim) and str(self.exec_root) in _cmdline(shim):
            os.kill(shim, signal.SIGTERM)
            for _ in range(50):
                if not _alive(shim):
                    break
                time.sleep(0.2)
            else:
                os.kill(shim, signal.SIGKILL)
        for root in (self.exec_root, self.data_root):
            for mount in reversed(_mounts_under(root)):
                subprocess.run(["umount", "-l", mount], capture_output=True, timeout=30)
        # the bridges of its networks, should it not have removed them itself
        for name in self.bridges & HostState.link_names():
            subprocess.run(["ip", "link", "delete", name], capture_output=True, timeout=30)
        if self.tmpfs:
            subprocess.run(["umount", str(self.data_root)], capture_output=True, timeout=60)
            self.tmpfs = False
        # rm is several times faster than shutil.rmtree on a data root of image layers
        subprocess.run(["rm", "-rf", "--one-file-system", str(self.exec_root), str(self.data_root)],
                       capture_output=True, timeout=600)

    def leftovers(self):
        """What of this daemon is still there after stop() (empty: nothing)."""
        out = []
        if self.proc is not None and self.proc.poll() is None:
            out.append(f"dockerd {self.proc.pid} still runs")
        out += [f"process {pid} still runs" for pid in self.pids if _alive(pid) and str(self.exec_root) in _cmdline(pid)]
        out += [f"mount {m}" for root in (self.exec_root, self.data_root) for m in _mounts_under(root)]
        out += [f"mount {self.data_root}" for _ in [1] if _mounts_under(self.data_root.parent).count(str(self.data_root))]
        out += [f"link {n}" for n in sorted(self.bridges & HostState.link_names())]
        out += [f"directory {d}" for d in (self.exec_root, self.data_root) if d.exists()]
        return out

    def load_images(self, refs, source):
        """Copy images from another engine (podman) into this dockerd: one archive
        through a pipe, so the same bits run under both engines."""
        save = subprocess.Popen([*source.cli(), "save", "-m", "--format", "docker-archive", *refs],
                                env=source.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        load = subprocess.run([*self.cli(), "load"], env=self.env, stdin=save.stdout, capture_output=True,
                              text=True, timeout=900)
        save.stdout.close()
        err = save.stderr.read().decode(errors="replace")
        save.wait(60)
        if save.returncode != 0 or load.returncode != 0:
            raise StepFailed(f"podman save exited {save.returncode} ({err[-300:]}), docker load exited "
                             f"{load.returncode} ({load.stderr[-300:]})")


def _alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def _cmdline(pid):
    try:
        return pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _mounts_under(root):
    root = str(root).rstrip("/") + "/"
    out = []
    with open("/proc/self/mounts") as f:
        for line in f:
            point = line.split()[1].replace("\\040", " ")
            if point.startswith(root):
                out.append(point)
    return out


ENGINES = {"podman": Podman, "docker": Docker}


def engines_wanted(environ=os.environ):
    """The engine classes CONTAINER_ENGINE names (podman, docker, or both
    separated by spaces or commas); all of them when it is not set."""
    wanted = environ.get("CONTAINER_ENGINE", "").replace(",", " ").split()
    unknown = [w for w in wanted if w not in ENGINES]
    if unknown:
        raise SystemExit(f"CONTAINER_ENGINE={environ['CONTAINER_ENGINE']!r}: known engines are podman and docker")
    return [ENGINES[w] for w in (wanted or list(ENGINES))]


# ---------------------------------------------------------------- a stack

class Stack:
    """A compose project made of `files` (docker/compose.yaml first, then overlays
    such as compose.secrets.yaml, compose.idp.yaml, compose.ha.yaml) under one engine."""

    def __init__(self, engine, project, files, env=None, secrets=()):
        self.engine = engine
        self.project = project
        self.files = [pathlib.Path(f) if pathlib.Path(f).is_absolute() else ROOT / f for f in files]
        self.env = dict(engine.env)
        self.env.update(env or {})
        self.secrets = [s for s in secrets if s]
        self.log_path = engine.tmp / f"{project}-compose.log"

    def redact(self, text):
        for s in self.secrets:
            text = text.replace(s, "***")
        return text

    def run(self, args, timeout=120, check=True, env=None):
        return run(args, env=env or self.env, timeout=timeout, check=check, redact=self.redact)

    def compose(self, *args, timeout=300, check=False):
        """A compose command; its output (podman-compose echoes every podman
        command) goes, redacted, to a log file, never to the suite's output."""
        proc = self.run([*self.engine.compose_cmd(self.project, self.files), *args], timeout=timeout, check=False)
        with self.log_path.open("a") as f:
            f.write(f"$ compose {' '.join(args)}\n" + self.redact(proc.stdout + proc.stderr))
        if check and proc.returncode != 0:
            raise StepFailed(f"compose {' '.join(args)} exited {proc.returncode}: "
                             f"{self.redact(proc.stderr or proc.stdout)[-800:]}")
        return proc

    def cli(self, *args, timeout=120, check=True, env=None):
        return self.run([*self.engine.cli(), *args], timeout=timeout, check=check, env=env)

    def container(self, service, n=1):
        return self.engine.container(self.project, service, n)

    def network(self):
        return self.engine.network(self.project)

    def logs(self, service, n=1, tail=None):
        args = ["logs", *(["--tail", str(tail)] if tail else []), self.container(service, n)]
        proc = self.cli(*args, check=False)
        return proc.stdout + proc.stderr

    def json_lines(self, service, n=1):
        out = []
        for line in self.logs(service, n).splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict):
                out.append(entry)
        return out

    def container_ip(self, name):
        out = self.cli("inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", name).stdout
        ips = out.split()
        if not ips:
            raise StepFailed(f"{name} has no IP address")
        return ips[0]

    def running(self):
        return self.cli("ps", "--format", "{{.Names}}", "--filter", f"label={self.engine.project_label(self.project)}",
                        check=False).stdout.split()

    def wait_running(self, services, timeout=90):
        names = [self.container(s, n) for s, n in services]
        deadline = time.monotonic() + timeout
        while True:
            running = self.running()
            if all(n in running for n in names):
                self.engine.note_bridges()
                return
            if time.monotonic() > deadline:
                raise StepFailed(f"containers running: {running}, wanted {names}; compose log: "
                                 f"{self.redact(self.log_path.read_text())[-700:] if self.log_path.exists() else ''}")
            time.sleep(1)

    # ---- the files, before anything runs

    def rendered(self):
        """The merged files as this engine's compose implementation substitutes
        them: podman-compose's own parser (its module, the code that runs for
        `up`), or `docker-compose config`."""
        if self.engine.name == "docker":
            return self.compose("config", check=True, timeout=60).stdout
        code = ("import json, os, sys, yaml\n"
                "sys.path.insert(0, '/usr/lib/python3/dist-packages')\n"
                "import podman_compose as pc\n"
                "merged = {}\n"
                "for name in sys.argv[1:]:\n"
                "    with open(name) as f:\n"
                "        pc.rec_merge(merged, pc.rec_subs(pc.normalize(yaml.safe_load(f)), dict(os.environ)))\n"
                "print(json.dumps(merged, indent=1))\n")
        return self.run(["/usr/bin/python3", "-c", code, *map(str, self.files)], timeout=60).stdout

    def unexpanded(self):
        """Lines of the rendered files that still hold "${" (redacted)."""
        return [self.redact(line.strip()) for line in self.rendered().splitlines() if "${" in line]

    # ---- the end

    def down(self):
        """Everything of the project goes: containers, volumes, network.  Returns what is left."""
        self.compose("down", "-v", "-t", "5", timeout=180)
        label = f"label={self.engine.project_label(self.project)}"
        left = self.cli("ps", "-a", "-q", "--filter", label, check=False).stdout.split()
        if left:
            self.cli("rm", "-f", "-v", *left, check=False)
        for kind in ("volume", "network"):
            listing = [kind, "ls", "--format", "{{.Name}}"]
            names = set(self.cli(*listing, "--filter", label, check=False).stdout.split())
            names |= {n for n in self.cli(*listing, check=False).stdout.split() if n.startswith(self.project + "_")}
            for n in names:
                # docker 20.10 has no `network rm -f`
                self.cli(kind, "rm", *(["-f"] if kind == "volume" or self.engine.name == "podman" else []), n, check=False)
        return {"containers": self.cli("ps", "-a", "-q", "--filter", label, check=False).stdout.split(),
                "volumes": [v for v in self.cli("volume", "ls", "-q", check=False).stdout.split()
                            if v.startswith(self.project + "_")],
                "networks": [n for n in self.cli("network", "ls", "--format", "{{.Name}}", check=False).stdout.split()
                             if n.startswith(self.project + "_")]}


if __name__ == "__main__":
    print(__doc__)
    sys.exit(0)
