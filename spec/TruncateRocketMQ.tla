-------------------------- MODULE TruncateRocketMQ --------------------------
(***************************************************************************)
(* Truncation policy `rocketmq` (RIP-44; reference/truncation.py rocketmq): *)
(* EpochFileCache.findConsistentPoint against the master's epoch file; an  *)
(* empty local epoch file skips truncation (keeps the whole log); -1 = no  *)
(* consistent point: the slave cannot sync (Handshake answers              *)
(* NO_CONSISTENT_POINT and the slave stays READY).                         *)
(*                                                                         *)
(* Every policy has the signature (local epoch file, local LEO, local high *)
(* watermark = confirmOffset, master's epoch file, master's LEO) -> the    *)
(* offset the slave keeps.                                                 *)
(***************************************************************************)
EXTENDS EpochFile

\* @type: (Seq($entry), Int, Int, Seq($entry), Int) => Int;
TruncRocketMQ(local, leo, hw, remote, remoteLeo) ==
    IF local = <<>> THEN leo
    ELSE FindConsistentPoint(local, leo, remote, remoteLeo)

=============================================================================
