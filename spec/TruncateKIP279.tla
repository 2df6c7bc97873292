--------------------------- MODULE TruncateKIP279 ---------------------------
(***************************************************************************)
(* Truncation policy `kip279` (Kafka 2.0.0, KIP-279, or 2.1.0 with         *)
(* KafkaLeaderEpochOnElection; reference/truncation.py kip279).            *)
(* AbstractFetcherThread.getOffsetTruncationState: the follower asks for   *)
(* its latest epoch; the leader answers endOffsetFor = <<E, end>>:         *)
(*  - end UNDEFINED: truncate to the fetch offset (the high watermark the  *)
(*    follower started from, or the offset of an earlier round) and stop;  *)
(*  - the follower's own endOffsetFor(E) UNDEFINED: min(end, LEO), stop;   *)
(*  - the follower's answer names E: min(its end, end, LEO), stop;         *)
(*  - else it names a smaller epoch F: truncate to min(its end of F, LEO)  *)
(*    and ask again (now F is its latest epoch).                           *)
(*                                                                         *)
(* Without recursion: a round depends only on how many entries the         *)
(* follower still has (an intermediate truncation keeps the entries up to  *)
(* F's), so Kip279Round(..., i) is the round with the first i entries.  A  *)
(* round at i that asks again jumps to F's entry k < i, and every round    *)
(* between k and i would make the same jump (no leader epoch lies between  *)
(* E and the epochs asked there, no follower epoch between F and E), so   *)
(* the walk from the last entry stops at the largest i whose round stops;  *)
(* the round of the first entry always stops.  This reads the file as      *)
(* ordered, which EpochFileWellFormed (checked in the same runs) ensures.  *)
(***************************************************************************)
EXTENDS EpochFile

\* The round with the follower's first i entries (its LEO then the end of
\* entry i): the point it truncates to and stops at, or -1: it asks again.
\* @type: (Seq($entry), Int, Int, Seq($entry), Int, Bool, Int) => Int;
Kip279Round(local, leo, hw, remote, remoteLeo, v21, i) ==
    LET version == IF v21 THEN "2.1" ELSE "2.0"
        li == EndOf(local, i, leo)
        leader == KafkaEndOffsetFor(remote, remoteLeo, local[i][1], version)
        follower == KafkaEndOffsetFor(SubSeq(local, 1, i), li, leader[1], version)
    IN IF leader[2] = Undefined THEN (IF i = Len(local) THEN Min2(hw, leo) ELSE li)
       ELSE IF follower[2] = Undefined THEN Min2(leader[2], li)
       ELSE IF follower[1] = leader[1] THEN Min2(Min2(follower[2], leader[2]), li)
       ELSE -1

\* An empty cache asks UNDEFINED_EPOCH, answered UNDEFINED: the high watermark.
\* @type: (Seq($entry), Int, Int, Seq($entry), Int, Bool) => Int;
TruncKIP279(local, leo, hw, remote, remoteLeo, v21) ==
    IF local = <<>> THEN Min2(hw, leo)
    ELSE LET stops == {i \in 1..Len(local) : Kip279Round(local, leo, hw, remote, remoteLeo, v21, i) # -1}
         IN Kip279Round(local, leo, hw, remote, remoteLeo, v21, MaxOf(stops))

=============================================================================
