----------------------------- MODULE TruncateHW -----------------------------
(***************************************************************************)
(* Truncation policy `hw` (Kafka before KIP-101; reference/truncation.py   *)
(* hw_policy): the follower truncates to its own high watermark.  Known    *)
(* unsafe: an acked message above the follower's stale high watermark is  *)
(* dropped (Kafka K1 -> NoAckedMessageLost), and logs diverge after fast   *)
(* leader changes (K2 -> LogMatching).                                     *)
(***************************************************************************)
EXTENDS EpochFile

\* @type: (Seq($entry), Int, Int, Seq($entry), Int) => Int;
TruncHW(local, leo, hw, remote, remoteLeo) == Min2(hw, leo)

=============================================================================
