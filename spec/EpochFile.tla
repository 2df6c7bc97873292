----------------------------- MODULE EpochFile -----------------------------
(***************************************************************************)
(* Logs and epoch files as values (MODEL.md §5; reference/epoch_file.py).  *)
(*                                                                         *)
(* A log is a sequence of entries <<msg, epoch>>: a unique message id and  *)
(* the master epoch it was written in; offset o (0-based, as in RocketMQ   *)
(* and the reference) is the sequence's element o + 1, so the LEO is       *)
(* Len(log).  An epoch file (RocketMQ EpochFileCache, Kafka's leader-epoch *)
(* checkpoint) is a sequence of <<epoch, startOffset>>.  Only pure         *)
(* operators here: the variables are declared in State.tla.  No           *)
(* recursion: each walk of the reference is a max/CHOOSE over a finite     *)
(* set of indices.                                                         *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

\* @typeAlias: entry = <<Int, Int>>;
EpochFile_typedefs == TRUE

\* @type: Set(Int) => Int;
MaxOf(S) == CHOOSE x \in S : \A y \in S : y <= x

\* @type: Set(Int) => Int;
MinOf(S) == CHOOSE x \in S : \A y \in S : x <= y

\* @type: (Int, Int) => Int;
Min2(a, b) == IF a <= b THEN a ELSE b

\* The messages of a log, and of its first n entries.
\* @type: Seq($entry) => Set(Int);
Msgs(log) == {log[i][1] : i \in 1..Len(log)}

\* @type: (Seq($entry), Int) => Set(Int);
MsgsBelow(log, n) == {log[i][1] : i \in 1..Min2(n, Len(log))}

\* appendEntry: the file refuses an entry whose epoch or start offset is not
\* strictly greater than the last one's, so an epoch bump with no new data
\* is not recorded (the code's behaviour; MODEL.md §4).
\* @type: (Seq($entry), Int, Int) => Seq($entry);
EfAppend(ef, epoch, start) ==
    IF ef # <<>> /\ (ef[Len(ef)][1] >= epoch \/ ef[Len(ef)][2] >= start)
    THEN ef
    ELSE Append(ef, <<epoch, start>>)

\* truncateSuffixByOffset: drop the entries that start at or beyond `offset`.
\* A filter, as in the reference (it does not assume the file is ordered).
\* @type: (Seq($entry), Int) => Seq($entry);
TruncateSuffix(ef, offset) ==
    LET \* @type: $entry => Bool;
        StartsBelow(e) == e[2] < offset
    IN SelectSeq(ef, StartsBelow)

\* truncateSuffixByEpoch: drop the entries whose epoch is at least `epoch`.
\* @type: (Seq($entry), Int) => Seq($entry);
TruncateSuffixByEpoch(ef, epoch) ==
    LET \* @type: $entry => Bool;
        Older(e) == e[1] < epoch
    IN SelectSeq(ef, Older)

\* findEpochEntryByOffset: the index (1-based) of the entry with
\* start <= offset < end (the last entry has no end); 0 when there is none
\* (the offset lies below the first start, or the file is empty).
\* @type: (Seq($entry), Int) => Int;
EntryAtOffset(ef, offset) ==
    LET has == {i \in 1..Len(ef) : ef[i][2] <= offset /\ (i = Len(ef) \/ offset < ef[i + 1][2])}
    IN IF has = {} THEN 0 ELSE MaxOf(has)

\* The epoch of the last entry, 0 for an empty file.
\* @type: Seq($entry) => Int;
LastEpoch(ef) == IF ef = <<>> THEN 0 ELSE ef[Len(ef)][1]

\* AutoSwitchHAService.changeToMaster(E) on the epoch file: refused
\* (unchanged) when E is below the last epoch; otherwise the entries of
\* epochs >= E go and (E, LEO) is appended with the strict rule (result
\* ignored), so re-entering the last epoch moves its start to the LEO
\* (ROCKETMQ.md §8.6).  With `keepOwn` (the hypothetical EpochReentryFix)
\* only the epochs above E go, so a re-entered epoch keeps its start.  The
\* torn-tail truncation (truncateInvalidMsg) is not modelled (a crash keeps
\* whole messages).
\* @type: (Seq($entry), Int, Int, Bool) => Seq($entry);
EfChangeToMaster(ef, epoch, leo, keepOwn) ==
    IF epoch < LastEpoch(ef) THEN ef
    ELSE EfAppend(TruncateSuffixByEpoch(ef, IF keepOwn THEN epoch + 1 ELSE epoch), epoch, leo)

\* The start of the last entry, 0 for an empty file (where the current epoch starts).
\* @type: Seq($entry) => Int;
LastStart(ef) == IF ef = <<>> THEN 0 ELSE ef[Len(ef)][2]

\* The end offset of the entry at index i (1-based): the next entry's start,
\* or the LEO for the last one.
\* @type: (Seq($entry), Int, Int) => Int;
EndOf(ef, i, leo) == IF i + 1 <= Len(ef) THEN ef[i + 1][2] ELSE leo

\* @type: (Seq($entry), Int) => Bool;
HasEpoch(ef, epoch) == \E i \in 1..Len(ef) : ef[i][1] = epoch

\* The index of the first entry of `epoch` (meaningful when HasEpoch).
\* @type: (Seq($entry), Int) => Int;
EntryOf(ef, epoch) ==
    CHOOSE i \in 1..Len(ef) : ef[i][1] = epoch /\ \A j \in 1..(i - 1) : ef[j][1] # epoch

\* findConsistentPoint: walk the local entries from the newest; the first
\* whose epoch the remote file has with the same start offset gives
\* min(local end, remote end); -1 when there is none.  "The first from the
\* newest" is the largest matching index.
\* @type: (Seq($entry), Int, Seq($entry), Int) => Int;
FindConsistentPoint(local, leo, remote, remoteLeo) ==
    LET match == {i \in 1..Len(local) :
                    /\ HasEpoch(remote, local[i][1])
                    /\ remote[EntryOf(remote, local[i][1])][2] = local[i][2]}
    IN IF match = {} THEN -1
       ELSE LET i == MaxOf(match)
                j == EntryOf(remote, local[i][1])
            IN Min2(EndOf(local, i, leo), EndOf(remote, j, remoteLeo))

\* EpochFileWellFormed for one process: epochs and start offsets strictly
\* increase; the last start is at most the LEO.
\* @type: (Seq($entry), Int) => Bool;
EfWellFormed(ef, leo) ==
    /\ \A i \in 1..(Len(ef) - 1) : ef[i][1] < ef[i + 1][1] /\ ef[i][2] < ef[i + 1][2]
    /\ ef = <<>> \/ ef[Len(ef)][2] <= leo

-----------------------------------------------------------------------------
(***************************************************************************)
(* Kafka's leader-epoch cache (kafka.server.epoch.LeaderEpochFileCache),   *)
(* the epoch file of the Kafka policies.  Cited versions (apache/kafka     *)
(* tags): 0.11.0.0 (KIP-101), 2.0.0 (KIP-279) and 2.1.0, which adds       *)
(* KAFKA-7415 (commit f2dd6aa): the new leader assigns (epoch, LEO), assign*)
(* removes conflicting entries, and a request below the first epoch is     *)
(* answered with the first entry's start.  `v21` selects 2.1.0's rules.    *)
(* UNDEFINED_EPOCH and UNDEFINED_EPOCH_OFFSET are both -1.                 *)
(***************************************************************************)

Undefined == -1

\* latestEpoch: the last entry's epoch, UNDEFINED_EPOCH for an empty cache.
\* @type: Seq($entry) => Int;
KafkaLatestEpoch(ef) == IF ef = <<>> THEN Undefined ELSE ef[Len(ef)][1]

\* assign(epoch, startOffset), called by Log.append for every appended batch
\* (leader and follower alike).  0.11.0.0-2.0.0: appended only if the epoch
\* is above the latest and the offset not below the latest start (else a
\* warning, no change).  2.1.0 (KAFKA-7415): unless it repeats the latest
\* epoch at or after its start, truncateAndAppend keeps only the entries
\* with a smaller epoch AND a smaller start, then appends.
\* @type: (Seq($entry), Int, Int, Bool) => Seq($entry);
KafkaAssign(ef, epoch, start, v21) ==
    IF v21
    THEN IF ef # <<>> /\ ef[Len(ef)][1] = epoch /\ start >= ef[Len(ef)][2] THEN ef
         ELSE LET \* @type: $entry => Bool;
                  Keep(e) == e[1] < epoch /\ e[2] < start
              IN Append(SelectSeq(ef, Keep), <<epoch, start>>)
    ELSE IF ef = <<>> \/ (epoch > ef[Len(ef)][1] /\ start >= ef[Len(ef)][2])
         THEN Append(ef, <<epoch, start>>)
         ELSE ef

\* endOffsetFor(requestedEpoch) as <<epoch, end offset>> (UNDEFINED = -1);
\* version "0.11" (0.11.0.0 returns only the offset: the epoch here is the
\* requested one, unused), "2.0" (2.0.0) or "2.1" (2.1.0).  The latest
\* epoch ends at the LEO; otherwise the end is the start of the first entry
\* above the requested epoch, with the last entry at or below it as the
\* epoch; none above -> UNDEFINED; none at or below -> UNDEFINED before
\* 2.1.0, <<requested, first start>> from 2.1.0.  2.0.0 and 2.1.0 answer an
\* UNDEFINED request with UNDEFINED; 0.11.0.0 has no such case (an empty
\* cache's latest epoch is UNDEFINED, so it answers the LEO).
\* @type: (Seq($entry), Int, Int, Str) => <<Int, Int>>;
KafkaEndOffsetFor(ef, leo, requested, version) ==
    IF requested = Undefined /\ version # "0.11" THEN <<Undefined, Undefined>>
    ELSE IF requested = KafkaLatestEpoch(ef) THEN <<requested, leo>>
    ELSE LET above == {j \in 1..Len(ef) : ef[j][1] > requested}
             atOrBelow == {j \in 1..Len(ef) : ef[j][1] <= requested}
         IN IF above = {} THEN <<Undefined, Undefined>>
            ELSE IF atOrBelow = {}
                 THEN IF version = "2.1" THEN <<requested, ef[MinOf(above)][2]>>
                      ELSE <<Undefined, Undefined>>
            ELSE <<ef[MaxOf(atOrBelow)][1], ef[MinOf(above)][2]>>

=============================================================================
