--------------------------- MODULE TruncateKIP279 ---------------------------
(***************************************************************************)
(* Truncation policy `kip279` (Kafka KIP-279; reference/truncation.py      *)
(* kip279).  The reference iterates: the follower asks for epoch `asked`   *)
(* (first its last epoch); the leader answers its largest epoch E <= asked *)
(* (the last such entry of its file) with that epoch's end; if the         *)
(* follower has E it keeps min(its own end of E, the leader's end); if the *)
(* leader has no epoch <= asked it keeps 0; otherwise it asks again for    *)
(* its largest epoch below E, and keeps 0 when it has none.                *)
(*                                                                         *)
(* Without recursion: the question for a local epoch `a` has the same     *)
(* answer E(a) for every local epoch between E(a) and the one asked (no    *)
(* leader epoch lies in between), so asking every local epoch from the     *)
(* newest down stops at the same place as the reference's jumps.  The walk *)
(* stops at the largest local epoch a with no leader epoch <= a (-> 0) or  *)
(* with E(a) in the local file (-> the min of the two ends); no stop -> 0. *)
(* This reads the local file as ordered by epoch, which EpochFileWellFormed*)
(* (checked in the same runs) guarantees.                                  *)
(***************************************************************************)
EXTENDS EpochFile

\* The leader's answer to "asked": the index of its last entry with epoch <= asked, 0 if none.
\* @type: (Seq($entry), Int) => Int;
LeaderAnswer(remote, asked) ==
    LET below == {j \in 1..Len(remote) : remote[j][1] <= asked} IN
    IF below = {} THEN 0 ELSE MaxOf(below)

\* @type: (Seq($entry), Int, Int, Seq($entry), Int) => Int;
TruncKIP279(local, leo, hw, remote, remoteLeo) ==
    IF local = <<>> THEN Min2(hw, leo)
    ELSE
    LET localEpochs == {local[i][1] : i \in 1..Len(local)}
        Stops(a) == LET j == LeaderAnswer(remote, a) IN j = 0 \/ HasEpoch(local, remote[j][1])
        stops == {a \in localEpochs : Stops(a)}
    IN IF stops = {} THEN 0
       ELSE LET a == MaxOf(stops)
                j == LeaderAnswer(remote, a)
            IN IF j = 0 THEN 0
               ELSE Min2(EndOf(local, EntryOf(local, remote[j][1]), leo), EndOf(remote, j, remoteLeo))

=============================================================================
