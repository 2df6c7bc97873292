--------------------------- MODULE TruncateKIP101 ---------------------------
(***************************************************************************)
(* Truncation policy `kip101` (Kafka KIP-101; reference/truncation.py      *)
(* kip101): the follower asks for the end of its last epoch: the leader's  *)
(* LEO if that is the leader's last epoch too, else the start of the first *)
(* leader epoch above it (the leader's LEO if none); it keeps              *)
(* min(LEO, that).  An empty epoch file falls back to the high watermark.  *)
(* Known unsafe with fast leader changes (KIP-279 -> LogMatching).         *)
(***************************************************************************)
EXTENDS EpochFile

\* @type: (Seq($entry), Int, Int, Seq($entry), Int) => Int;
TruncKIP101(local, leo, hw, remote, remoteLeo) ==
    IF local = <<>> THEN Min2(hw, leo)
    ELSE
    LET asked == LastEpoch(local)
        above == {j \in 1..Len(remote) : remote[j][1] > asked}
        answer ==
            IF remote # <<>> /\ remote[Len(remote)][1] = asked THEN remoteLeo
            ELSE IF above = {} THEN remoteLeo
            \* "the first" in file order: the smallest index above
            ELSE remote[CHOOSE j \in above : \A k \in above : j <= k][2]
    IN Min2(leo, answer)

=============================================================================
