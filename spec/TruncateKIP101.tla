--------------------------- MODULE TruncateKIP101 ---------------------------
(***************************************************************************)
(* Truncation policy `kip101` (Kafka 0.11.0.0, KIP-101; reference/         *)
(* truncation.py kip101).  ReplicaFetcherThread.buildLeaderEpochRequest    *)
(* asks for the follower's latest epoch (UNDEFINED for an empty cache); the *)
(* leader answers LeaderEpochFileCache.endOffsetFor (0.11.0.0, or 2.1.0    *)
(* with KafkaLeaderEpochOnElection); ReplicaFetcherThread.maybeTruncate    *)
(* truncates to the follower's high watermark when the answer is           *)
(* UNDEFINED_EPOCH_OFFSET, else to min(answer, LEO).  Known unsafe with    *)
(* fast leader changes (KIP-279 -> LogMatching).                           *)
(***************************************************************************)
EXTENDS EpochFile

\* @type: (Seq($entry), Int, Int, Seq($entry), Int, Bool) => Int;
TruncKIP101(local, leo, hw, remote, remoteLeo, v21) ==
    LET answer == KafkaEndOffsetFor(remote, remoteLeo, KafkaLatestEpoch(local),
                                    IF v21 THEN "2.1" ELSE "0.11")[2]
    IN IF answer = Undefined THEN Min2(hw, leo) ELSE Min2(answer, leo)

=============================================================================
