"""One run of ``autoswitch cluster run``: start the cluster, run the workload under the seeded faults, heal, read
everything back, check the history, write the report. Every JVM is stopped on the way out, whatever the way."""

from __future__ import annotations

import json
import shlex
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attrs import frozen

from autoswitch.conformance.cluster import check as history
from autoswitch.conformance.cluster import events
from autoswitch.conformance.cluster.build import Build, HarnessError, build
from autoswitch.conformance.cluster.procs import Jvm, free_ports, run_client, wait_listening
from autoswitch.conformance.cluster.proxy import LinkProxy
from autoswitch.conformance.cluster.schedule import (
    CUT,
    KILL,
    KILL_CONTROLLER,
    KILL_NAMESRV,
    PAUSE,
    WIPE,
    WIPE_CONTROLLER,
    Fault,
    Schedule,
    make_schedule,
)
from autoswitch.conformance.cluster.settings import SETTINGS
from autoswitch.conformance.errors import EXIT_INTERNAL, EXIT_OK, EXIT_VERDICT
from autoswitch.conformance.rocketmq.jvm import java_command

CLUSTER, BROKER_SET, TOPIC, QUEUES = "autoswitch", "broker-a", "autoswitch-history", 4
START_SECONDS = 90.0  # a JVM's bound to listen (a loaded 2-core machine starts a broker in 5-20 s)
SETUP_SECONDS = 120.0  # the set has a master, all brokers registered, the topic routed
IN_SYNC_SECONDS = 90.0  # every broker in the SyncStateSet before the workload
HEAL_SECONDS = 120.0  # after the faults: a master and every broker in the SyncStateSet again
LOSS_HEAL_SECONDS = 60.0  # after a metadata loss: 30 of the brokers' metadata syncs (syncBrokerMetadataPeriod 2 s)
USER_HOME = "user-home"  # a node's user.home, under its folder: RocketMQ's own logs are in rocketmq_logs(node folder)
STORE_DELETED = "store deleted"  # a wiped broker's line in faults.jsonl (events.py: WipeDisk)
LINK_CUT, LINK_HEALED = "links cut", "links healed"  # a master's replication links (events.py: PartitionLink, HealLink)
CUT_WAIT_SECONDS = 20.0  # a cut waits at most this long for every broker in the SyncStateSet
NOT_REGISTERED = "hasn't been registered in controller"  # the controller's refusal of registerBrokerToController (2010)
READ_SECONDS = 180.0
WATCH_PERIOD_MS = 250  # short: two polls should see each change of the controller's view
SEND_TIMEOUT_MS = 3000
MB16 = str(16 * 1024 * 1024)
# failure detection shortened from the defaults (10 s heartbeat timeout, 5 s scans, 15 s to fall out of sync) so that a
# failover fits a short run; every other setting is RocketMQ's default or the --settings row's
BROKER_COMMON = {"brokerClusterName": CLUSTER, "brokerName": BROKER_SET, "brokerId": "-1", "brokerRole": "SLAVE",
                 "enableControllerMode": "true", "brokerIP1": "127.0.0.1", "brokerIP2": "127.0.0.1",
                 "controllerHeartBeatTimeoutMills": "4000", "syncBrokerMetadataPeriod": "2000",
                 "checkSyncStateSetPeriod": "2000", "syncControllerMetadataPeriod": "3000", "haMaxTimeSlaveNotCatchup": "6000",
                 "mappedFileSizeCommitLog": MB16, "timerWheelEnable": "false", "autoCreateTopicEnable": "true"}
NAMESRV_COMMON = {"enableControllerInNamesrv": "true", "controllerDLegerGroup": "autoswitch", "controllerDLegerSelfId": "n0",
                  "mappedFileSize": MB16, "scanNotActiveBrokerInterval": "1000", "scanInactiveMasterInterval": "1000"}
# a standalone controller node (--controllers 3): a DLedger peer "n<k>" of node controller-<k>, the same periods
CONTROLLER_COMMON = {"controllerType": "DLedger", "controllerDLegerGroup": "autoswitch", "mappedFileSize": MB16,
                     "scanNotActiveBrokerInterval": "1000", "scanInactiveMasterInterval": "1000"}
CONTROLLER_HEAP = "128m"


@frozen
class RunConfig:
    seed: int
    out: Path
    brokers: int
    settings: str
    duration: float
    version: str
    pause_ms: int = 20  # between two sends
    metadata_loss: bool = False
    wipe: bool = False  # wiped broker stores drawn in the schedule
    controllers: int = 1  # 1: the controller embedded in the name server; 3: standalone controller nodes (DLedger)
    cut: bool = False  # each broker's HA port behind a proxy of ours; the master's links cut in the schedule

    def command(self, out: str = "NEW_DIR") -> str:
        return (f"autoswitch cluster run --seed {self.seed} --brokers {self.brokers} --settings {self.settings} "
                f"--duration {self.duration:g} --rocketmq-version {self.version} --out {shlex.quote(out)}"
                + (" --metadata-loss" if self.metadata_loss else "") + (" --wipe" if self.wipe else "")
                + (f" --controllers {self.controllers}" if self.controllers != 1 else "") + (" --cut" if self.cut else ""))

    def schedule(self) -> Schedule:
        return make_schedule(self.seed, self.duration, self.brokers, self.metadata_loss, self.wipe, self.controllers,
                             self.cut)


@frozen
class Outcome:
    verdict: history.Verdict | None
    failovers: int
    elections: int
    healed: bool
    seconds: float
    exit_code: int
    problem: str | None = None
    validation: events.Validation | None = None


def rocketmq_logs(node_dir: Path) -> Path:
    """Where a node's RocketMQ logs are (logback writes ${user.home}/logs/rocketmqlogs)."""
    return node_dir / USER_HOME / "logs" / "rocketmqlogs"


def _properties(path: Path, values: dict[str, str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{k}={v}\n" for k, v in values.items()))
    return path


class ClusterRun:
    """The processes of one run and what they showed."""

    def __init__(self, config: RunConfig, echo: Callable[[str], None]):
        self.config, self.echo = config, echo
        self.setting = SETTINGS[config.settings]
        self.out = config.out
        self.nodes: dict[str, Jvm] = {}
        self.clients: list[Jvm] = []
        self.broker_ports: dict[str, int] = {}
        self.down: set[str] = set()  # nodes this run killed and has not restarted yet
        self.built: Build | None = None
        self.addresses: dict[str, str] = {}  # namesrv, controller: host:port (controllers: ';'-separated)
        self.controller_nodes: dict[str, str] = {}  # DLedger peer id -> node, with --controllers 3
        self.proxies: dict[str, LinkProxy] = {}  # broker -> the proxy in front of its HA port, with --cut
        self.t0 = 0

    # -- files ---------------------------------------------------------------------------------------------------------
    def path(self, name: str) -> Path:
        return self.out / name

    def event(self, event: str, node: str = "", at: int | None = None, **more: Any) -> None:
        """A line of faults.jsonl: ``at`` (ms) is when it began (a kill's time is taken before the signal, so the crash
        is never earlier than its line), else now."""
        row = {"t": at if at is not None else int(time.time() * 1000), "event": event, "node": node, **more}
        with open(self.path("faults.jsonl"), "a") as out:
            out.write(json.dumps(row) + "\n")
        self.echo(f"  {(row['t'] - self.t0) / 1000 if self.t0 else 0:7.1f} s  {event} {node}"
                  + (f" ({more['role']})" if more.get("role") else ""))

    def node_dir(self, name: str) -> Path:
        return self.out / "nodes" / name

    def jvm(self, name: str, main: str, *args: str, heap: str = "256m") -> Jvm:
        assert self.built is not None
        home = self.node_dir(name) / USER_HOME
        home.mkdir(parents=True, exist_ok=True)
        command = java_command(self.built, home, f"autoswitch.cluster.{main}", *args, heap=heap,
                               options=("-Xss512k", f"-Drocketmq.home.dir={home}"))
        return Jvm(name, command, self.node_dir(name) / "console.log", self.node_dir(name))

    # -- the controller's view (the watcher's last poll) ----------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        rows = history.read_jsonl(self.path("watch.jsonl"))
        return rows[-1] if rows else {}

    def node_of(self, address: str | None) -> str | None:
        for name, port in self.broker_ports.items():
            if address == f"127.0.0.1:{port}":
                return name
        return None

    def in_sync(self, state: dict[str, Any]) -> bool:
        return bool(state.get("master_address")) and len(state.get("in_sync") or []) == self.config.brokers

    def wait_for(self, condition: Callable[[dict[str, Any]], bool], seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.check_alive()
            if condition(self.state()):
                return True
            time.sleep(0.5)
        return False

    def check_alive(self) -> None:
        """A node that exited by itself is recorded and restarted (so that the run can heal); the watcher or the
        producer exiting is a harness failure."""
        for name, node in self.nodes.items():
            if name not in self.down and not node.alive():
                if name in ("watcher", "producer"):
                    raise node.failed("exited")
                self.event("exited by itself", name, code=node.process.returncode if node.process else None)
                at = int(time.time() * 1000)
                node.start()
                self.event("restart", name, at=at)

    # -- start -----------------------------------------------------------------------------------------------------------
    def start(self) -> None:
        self.echo(f"building the launchers against RocketMQ {self.config.version} (Maven; cached)")
        self.built = build(self.config.version)
        embedded = self.config.controllers == 1
        brokers, controllers = self.config.brokers, self.config.controllers
        ports = free_ports(1 + controllers + brokers + (brokers if self.config.cut else 0))  # the proxies' last
        ns_port, controller_ports = ports[0], ports[1:1 + controllers]
        ports, proxy_ports = ports[1 + controllers:1 + controllers + brokers], ports[1 + controllers + brokers:]
        namesrv_addr = f"127.0.0.1:{ns_port}"
        controller_addr = ";".join(f"127.0.0.1:{port}" for port in controller_ports)
        self.addresses = {"namesrv": namesrv_addr, "controller": controller_addr}
        ns = self.node_dir("namesrv")
        props = _properties(ns / "node.properties", {
            **NAMESRV_COMMON, **self.setting.controller, "listenPort": str(ns_port),
            "controllerDLegerPeers": f"n0-{controller_addr}", "controllerStorePath": str(ns / "controller"),
            "configStorePath": str(ns / "controller.properties"), "kvConfigPath": str(ns / "kvConfig.json"),
            "rocketmqHome": str(ns / "home")} if embedded else {
            "listenPort": str(ns_port), "enableControllerInNamesrv": "false", "kvConfigPath": str(ns / "kvConfig.json"),
            "configStorePath": str(ns / "namesrv.properties"), "rocketmqHome": str(ns / "home")})
        self.nodes["namesrv"] = self.jvm("namesrv", "Node", "namesrv", str(props))
        self.echo(f"starting the name server with the controller embedded ({namesrv_addr}, controller {controller_addr})"
                  if embedded else f"starting the name server ({namesrv_addr})")
        self.nodes["namesrv"].start()
        if not embedded:
            self.start_controllers(controller_ports)
        wait_listening(self.nodes["namesrv"], ns_port, START_SECONDS)
        if embedded:
            wait_listening(self.nodes["namesrv"], controller_ports[0], START_SECONDS)
        for k, port in enumerate(controller_ports if not embedded else [], 1):
            wait_listening(self.nodes[f"controller-{k}"], port, START_SECONDS)
        # the watcher first, so that its event log starts before the brokers register (validate searches from Init)
        self.nodes["watcher"] = self.jvm("watcher", "Client", "watch", namesrv_addr, controller_addr, BROKER_SET,
                                         str(self.path("watch.jsonl")), str(WATCH_PERIOD_MS), heap="128m")
        self.nodes["watcher"].start()
        for k, port in enumerate(ports, 1):
            name = f"broker-{k}"
            home = self.node_dir(name)
            props = _properties(home / "node.properties", {
                **BROKER_COMMON, **self.setting.broker, "namesrvAddr": namesrv_addr, "controllerAddr": controller_addr,
                "listenPort": str(port), "haListenPort": str(port + 1), "storePathRootDir": str(home / "store"),
                "storePathCommitLog": str(home / "store" / "commitlog"), "rocketmqHome": str(home / "home")})
            self.broker_ports[name] = port
            self.nodes[name] = self.jvm(name, "Node", "broker", str(props))
            if self.config.cut:  # the broker advertises the proxy as its HA address (Node.java): its slaves come through it
                self.proxies[name] = LinkProxy(proxy_ports[k - 1], port + 1)
                with open(props, "a") as more:
                    more.write(f"autoswitchHaAddress=127.0.0.1:{proxy_ports[k - 1]}\n")
        self.echo(f"starting {self.config.brokers} brokers of set {BROKER_SET} in controller mode (ports "
                  f"{', '.join(map(str, self.broker_ports.values()))})")
        for name in self.broker_ports:
            self.nodes[name].start()
        for name, port in self.broker_ports.items():
            wait_listening(self.nodes[name], port, START_SECONDS)
        setup = self.jvm("setup", "Client", "setup", namesrv_addr, BROKER_SET, str(self.config.brokers), TOPIC, str(QUEUES),
                         str(int(SETUP_SECONDS)), heap="128m")
        self.clients.append(setup)
        answer = run_client(setup, SETUP_SECONDS + 30)
        if not answer.get("ok"):
            raise setup.failed(f"could not set the cluster up: {answer.get('error')}")
        if not self.wait_for(self.in_sync, IN_SYNC_SECONDS):
            raise HarnessError(f"the brokers were not all in the SyncStateSet within {IN_SYNC_SECONDS:.0f} s; the controller "
                               f"shows {json.dumps(self.state())[:600]}")
        state = self.state()
        self.echo(f"cluster up: master {self.node_of(state.get('master_address'))} (broker id {state.get('master_id')}, "
                  f"epoch {state.get('master_epoch')}), SyncStateSet {[r['id'] for r in state.get('in_sync', [])]}")

    def start_controllers(self, ports: list[int]) -> None:
        """Standalone controller nodes controller-1..n, DLedger peers n1..nn of one group (ControllerStartup's way)."""
        peers = ";".join(f"n{k}-127.0.0.1:{port}" for k, port in enumerate(ports, 1))
        for k, port in enumerate(ports, 1):
            name = f"controller-{k}"
            home = self.node_dir(name)
            props = _properties(home / "node.properties", {  # DLedger's server listens on the node's peer address
                **CONTROLLER_COMMON, **self.setting.controller, "controllerDLegerPeers": peers, "listenPort": str(port),
                "controllerDLegerSelfId": f"n{k}", "controllerStorePath": str(home / "controller"),
                "configStorePath": str(home / "controller.properties"), "rocketmqHome": str(home / "home")})
            self.controller_nodes[f"n{k}"] = name
            self.nodes[name] = self.jvm(name, "Node", "controller", str(props), heap=CONTROLLER_HEAP)
        self.echo(f"starting {len(ports)} controller nodes (DLedger peers {peers})")
        for name in self.controller_nodes.values():
            self.nodes[name].start()

    # -- faults ----------------------------------------------------------------------------------------------------------
    def resolve(self, fault: Fault) -> tuple[str | None, str]:
        if fault.kind in (KILL_NAMESRV, WIPE_CONTROLLER):
            return "namesrv", "name server and controller" if self.config.controllers == 1 else "name server"
        if fault.kind == CUT:
            # a cut matters to the client only while a slave is in the SyncStateSet: wait for the whole set (a slave
            # rejoins 5-20 s after a failover), so the cut may come up to CUT_WAIT_SECONDS late (faults.jsonl says when)
            self.wait_for(self.in_sync, CUT_WAIT_SECONDS)
            master = None
            if self.wait_for(lambda s: self.node_of(s.get("master_address")) not in (None, *self.down), 15.0):
                master = self.node_of(self.state().get("master_address"))
            return master, "master"
        if fault.kind == KILL_CONTROLLER:
            leader = None
            if self.wait_for(lambda s: self.controller_nodes.get(str(s.get("controller_leader"))) not in (None, *self.down),
                             15.0):
                leader = self.controller_nodes[str(self.state().get("controller_leader"))]
            if fault.target == "leader":
                return leader, "controller leader"
            followers = [n for n in self.controller_nodes.values() if n != leader and n not in self.down]
            return (followers[int(fault.at * 10) % len(followers)] if followers else None), "controller follower"
        master = None
        if self.wait_for(lambda s: self.node_of(s.get("master_address")) not in (None, *self.down), 15.0):
            master = self.node_of(self.state().get("master_address"))
        if fault.target == "master":
            return master, "master"
        others = [n for n in self.broker_ports if n != master and n not in self.down]
        return (others[int(fault.at * 10) % len(others)] if others else None), "slave"

    def apply(self, fault: Fault) -> None:
        node, role = self.resolve(fault)
        if node is None:
            self.event(f"skipped {fault.kind}: no {fault.target}", "", role=fault.target)
            return
        jvm = self.nodes[node]
        if fault.kind in (KILL, KILL_NAMESRV, WIPE_CONTROLLER, WIPE, KILL_CONTROLLER):
            self.down.add(node)
            in_sync = [r["id"] for r in self.state().get("in_sync") or []]
            at = int(time.time() * 1000)
            jvm.kill9()
            self.event("kill -9", node, at=at, role=role)
            if fault.kind == WIPE_CONTROLLER:
                shutil.rmtree(self.node_dir("namesrv") / "controller", ignore_errors=True)
                self.event("controller store deleted", node)
            if fault.kind == WIPE:  # the store folder: commit log, consume queues, epoch file, brokerIdentity, config
                shutil.rmtree(self.node_dir(node) / "store")
                self.event(STORE_DELETED, node, role=role, in_sync=in_sync)
            self.sleep(fault.length)
            at = int(time.time() * 1000)
            jvm.start()
            self.down.discard(node)
            self.event("restart", node, at=at)
        elif fault.kind == CUT:
            slaves = [n for n in self.broker_ports if n != node]
            in_sync = [r["id"] for r in self.state().get("in_sync") or []]
            self.proxies[node].hold()
            self.event(LINK_CUT, node, role=role, slaves=slaves, in_sync=in_sync)
            self.sleep(fault.length)
            self.proxies[node].release()
            self.event(LINK_HEALED, node, slaves=slaves)
        else:
            assert fault.kind == PAUSE
            self.down.add(node)
            jvm.pause(fault.length)
            self.event("SIGSTOP", node, role=role)
            self.sleep(fault.length)
            jvm.resume()
            self.down.discard(node)
            self.event("SIGCONT", node)

    def sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.check_alive()
            time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))

    # -- workload ----------------------------------------------------------------------------------------------------------
    def workload(self, schedule: Schedule) -> None:
        producer = self.jvm("producer", "Client", "produce", self.addresses["namesrv"], TOPIC, str(self.path("history.jsonl")),
                            str(self.config.pause_ms), str(SEND_TIMEOUT_MS), heap="128m")
        self.nodes["producer"] = producer
        producer.start()
        start = time.monotonic()
        self.t0 = int(time.time() * 1000)
        self.event("workload start", "producer")
        for fault in schedule.faults:
            self.sleep(max(0.0, fault.at - (time.monotonic() - start)))
            self.apply(fault)
        self.sleep(max(0.0, schedule.duration - (time.monotonic() - start)))
        self.down.add("producer")
        producer.send("stop")
        assert producer.process is not None
        try:
            producer.process.wait(SEND_TIMEOUT_MS / 1000 + 10)
        except Exception:  # noqa: BLE001 - TimeoutExpired: stopped below
            pass
        producer.stop(1)
        self.event("workload stop", "producer")

    def heal(self) -> bool:
        for proxy in self.proxies.values():
            proxy.release()
        for name, node in self.nodes.items():
            if name not in ("producer",) and node.alive() and node.paused:
                node.resume()
        bound = LOSS_HEAL_SECONDS if self.config.metadata_loss else HEAL_SECONDS
        ok = self.wait_for(self.in_sync, bound)
        state = self.state()
        self.event("healed" if ok else f"not healed within {bound:.0f} s", self.node_of(state.get("master_address")) or "",
                   master_id=state.get("master_id"), master_epoch=state.get("master_epoch"),
                   in_sync=[r["id"] for r in state.get("in_sync") or []])
        return ok

    def read_back(self) -> dict[str, Any]:
        reader = self.jvm("reader", "Client", "read", self.addresses["namesrv"], TOPIC, str(self.path("read.jsonl")), heap="256m")
        self.clients.append(reader)
        answer = run_client(reader, READ_SECONDS)
        if not answer.get("ok"):
            raise reader.failed(f"could not read the topic back: {answer.get('error')}")
        return answer

    def stop(self) -> None:
        for node in [*self.nodes.values(), *self.clients]:
            node.stop(3)
        for proxy in self.proxies.values():
            proxy.close()

    # -- what the controller showed --------------------------------------------------------------------------------------
    def failovers(self) -> tuple[int, int]:
        """(master changes to another broker, elections: master epoch increases) in the watcher's polls."""
        changes = elections = 0
        master, epoch = None, None
        for row in history.read_jsonl(self.path("watch.jsonl")):
            if row.get("master_epoch") is None:
                continue
            if epoch is not None and row["master_epoch"] > epoch:
                elections += 1
                if row.get("master_id") not in (None, master):
                    changes += 1
            if row.get("master_id") is not None and row.get("master_address"):
                master = row["master_id"]
            epoch = row["master_epoch"]
        return changes, elections


def run(config: RunConfig, echo: Callable[[str], None], result: Callable[[str], None]) -> Outcome:
    """One run, start to report; ``echo`` gets progress, ``result`` the verdict lines."""
    began = time.monotonic()
    schedule = config.schedule()
    setting = SETTINGS[config.settings]
    (config.out / "schedule.json").write_text(json.dumps(schedule.to_json(), indent=2) + "\n")
    result(f"checked under {setting.describe(config.brokers)}")
    result(f"--settings {config.settings}: {setting.about}; broker {dict(setting.broker)}, controller {dict(setting.controller)}")
    result(f"schedule (seed {config.seed}, {len(schedule.faults)} faults over {config.duration:g} s"
           f"{', wiped stores drawn' if config.wipe else ''}{', replication links cut' if config.cut else ''}):")
    for line in schedule.describe():
        result(f"  {line}")
    cluster = ClusterRun(config, echo)
    healed, unreadable = False, ""
    try:
        cluster.start()
        cluster.workload(schedule)
        healed = cluster.heal()
        try:
            read = cluster.read_back()
            echo(f"read back {read.get('read')} messages from queues {read.get('queues')}")
        except HarnessError as e:
            if healed:
                raise
            unreadable = str(e)  # the set never healed: a liveness verdict on the cluster, not a harness failure
    finally:
        cluster.stop()
    failovers, elections = cluster.failovers()
    sent = history.read_jsonl(config.out / "history.jsonl")
    verdict = history.unread(sent) if unreadable else history.check(sent, history.read_jsonl(config.out / "read.jsonl"))
    echo("validating the controller's view against the model (autoswitch validate)")
    validation = events.validate(config.out, history.read_jsonl(config.out / "watch.jsonl"),
                                 history.read_jsonl(config.out / "faults.jsonl"), cluster.broker_ports,
                                 setting.control(config.brokers))
    seconds = time.monotonic() - began
    code = EXIT_OK if verdict.holds else EXIT_VERDICT  # the history check decides (never healed: the cluster's liveness)
    outcome = Outcome(verdict, failovers, elections, healed, seconds, code, unreadable or None, validation=validation)
    write_report(config, schedule, outcome, result)
    if config.metadata_loss:
        logs = [rocketmq_logs(node) / "broker.log" for node in (config.out / "nodes").glob("broker-*")]
        refusals = sum(log.read_text(errors="replace").count(NOT_REGISTERED) for log in logs if log.exists())
        result(f"verdict (registration): after the controller lost its metadata the set was "
               f"{'registered again' if healed else f'NOT registered again within {LOSS_HEAL_SECONDS:.0f} s'}; the "
               f"brokers' registerBrokerToController was refused {refusals} times (\"{NOT_REGISTERED}\"): the model's "
               "MC_live_meta says EventuallyRegistered fails")
    return outcome


def harness_failed(config: RunConfig, error: HarnessError, result: Callable[[str], None]) -> Outcome:
    """A run whose harness failed: the report says so; exit 3."""
    outcome = Outcome(None, 0, 0, False, 0.0, EXIT_INTERNAL, str(error))
    (config.out / "report.md").write_text(f"# autoswitch cluster run: harness failure\n\n```\n{error}\n```\n\nRepeat: "
                                          f"`{config.command()}`\n")
    result(f"verdict: harness failure (exit 3): {error}")
    return outcome


def _headline(verdict: history.Verdict) -> str:
    return "no verdict, the cluster never healed" if verdict.unread else "holds" if verdict.holds else "BROKEN"


def _lost_count(verdict: history.Verdict, counts: dict[str, int]) -> str:
    if verdict.unread:
        return f"{counts['acked']} acknowledged messages not read back"
    return f"{counts['lost']} acknowledged messages lost"


def write_report(config: RunConfig, schedule: Schedule, outcome: Outcome, result: Callable[[str], None]) -> None:
    verdict, validation = outcome.verdict, outcome.validation
    assert verdict is not None and validation is not None
    setting = SETTINGS[config.settings]
    faults = history.read_jsonl(config.out / "faults.jsonl")
    start = next((int(f["t"]) for f in faults if f["event"] == "workload start"), 0)
    counts = verdict.counts()
    lines = [f"# autoswitch cluster run, seed {config.seed}", "",
             f"RocketMQ {config.version}, {config.brokers} brokers, "
             f"{'the controller embedded in the name server' if config.controllers == 1 else f'{config.controllers} controller nodes'}"
             f"{', wiped stores drawn' if config.wipe else ''}{', replication links cut' if config.cut else ''}, "
             f"`--settings {config.settings}`: checked under "
             f"{setting.describe(config.brokers)}.", "",
             f"**NoAckedMessageLost: {_headline(verdict)}** "
             f"({_lost_count(verdict, counts)}); {outcome.failovers} failovers "
             f"({outcome.elections} elections); {'healed' if outcome.healed else 'NOT healed'}; {outcome.seconds:.0f} s.", "",
             "| sent | acked | failed | unknown | read back | lost | duplicated |", "|---|---|---|---|---|---|---|",
             f"| {counts['sent']} | {counts['acked']} | {counts['failed']} | {counts['unknown']} | {counts['read back']} | "
             f"{counts['lost']} | {counts['duplicated']} |", "",
             f"Unknown sends read back: {counts['unknown read back']}; failed sends read back: {counts['failed but read back']}; "
             f"read back but never sent: {counts['read, never sent']}.", "",
             f"**The controller's view against the model** (`events/controller.ndjson`, {validation.events} events, "
             f"`autoswitch validate`): {validation.status}: {validation.text}", "", "## Faults", ""]
    lines += [f"- {history.describe_fault(f, start)}" for f in faults]
    if verdict.unread:
        lines += ["", "## Never healed", "", f"The set had no master with its whole SyncStateSet within the heal bound, and "
                  f"the topic could not be read back ({outcome.problem}). Whether the {counts['acked']} acknowledged "
                  "messages survive is not known; the cluster's own liveness failed (the model's EventuallyMaster and "
                  "EventuallyInSync)."]
    if verdict.lost:
        lines += ["", "## Lost (acknowledged, not read back)", ""]
        for send in verdict.lost:
            around = "; ".join(history.describe_fault(f, start) for f in history.faults_around(send.invoked, faults))
            lines.append(f"- {send.id}: acked {((send.completed or 0) - start) / 1000:+.1f} s at "
                         f"{send.detail.get('broker')}/{send.detail.get('queue')} offset {send.detail.get('offset')}; "
                         f"faults around it: {around or 'none'}")
    if verdict.duplicated:
        lines += ["", "## Duplicated (read back more than once)", ""]
        lines += [f"- {i}: {n} times" for i, n in verdict.duplicated]
    if verdict.failed_read or verdict.phantom:
        lines += ["", "## Anomalies", "", f"- failed sends read back: {', '.join(verdict.failed_read) or 'none'}",
                  f"- read back, never sent: {', '.join(verdict.phantom) or 'none'}"]
    lines += ["", "## Files", "", "- `schedule.json`: the seeded schedule; `faults.jsonl`: what was done, when, to which node",
              "- `history.jsonl`: the producer's history (invoke, then ok / fail / unknown); `read.jsonl`: what was read back",
              "- `watch.jsonl`: the controller's sync state data and the brokers' epoch caches, polled every "
              f"{WATCH_PERIOD_MS} ms", "- `events/controller.ndjson`: the controller's view as an event log; "
              "`validate.log`, `validate/`: `autoswitch validate` on it (the explanation as ITF, or the refusal)",
              f"- `{events.TIMELINE}` (when explained): the explanation step by step in the explorer, one lane per "
              "broker, the run's kills and restarts as its Crash and Restart steps",
              f"- `nodes/<node>/console.log`, `nodes/<node>/{rocketmq_logs(Path()).as_posix()}/`: each node's logs",
              "", f"Repeat the schedule: `{config.command()}`", ""]
    (config.out / "report.md").write_text("\n".join(lines))
    (config.out / "summary.json").write_text(json.dumps({
        "seed": config.seed, "settings": config.settings, "control": setting.control(config.brokers).name,
        "brokers": config.brokers, "controllers": config.controllers, "wipe": config.wipe, "cut": config.cut,
        "version": config.version,
        "counts": counts, "failovers": outcome.failovers,
        "elections": outcome.elections, "healed": outcome.healed, "seconds": round(outcome.seconds, 1),
        "holds": verdict.holds, "unread": verdict.unread, "lost": [s.id for s in verdict.lost],
        "duplicated": dict(verdict.duplicated),
        "validate": {"status": validation.status, "events": validation.events, "text": validation.text}}, indent=2) + "\n")
    result("counts: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    result(f"failovers: {outcome.failovers} (elections {outcome.elections}); {'healed' if outcome.healed else 'NOT healed'}; "
           f"{outcome.seconds:.0f} s")
    for send in verdict.lost[:20]:
        around = "; ".join(history.describe_fault(f, start) for f in history.faults_around(send.invoked, faults))
        result(f"  lost {send.id} (acked at {send.detail.get('broker')}/{send.detail.get('queue')} offset "
               f"{send.detail.get('offset')}); faults around it: {around}")
    result(f"verdict (logs): {validation.status}: autoswitch validate on the controller's view ({validation.events} events) "
           f"under {setting.control(config.brokers).name}: {validation.text}")
    if verdict.unread:
        result(f"verdict: the cluster never healed (no master with its whole SyncStateSet), so NoAckedMessageLost has no "
               f"verdict: {counts['acked']} acknowledged messages could not be read back ({config.out / 'report.md'})")
    elif verdict.holds:
        result(f"verdict: NoAckedMessageLost holds: all {counts['acked']} acknowledged messages read back "
               f"({config.out / 'report.md'})")
    else:
        result(f"verdict: NoAckedMessageLost BROKEN: {counts['lost']} of {counts['acked']} acknowledged messages lost "
               f"({config.out / 'report.md'})")
    if not verdict.holds or validation.status == events.REFUSED:
        result(f"repeat: {config.command()}")
