------------------------------ MODULE MC_data3 ------------------------------
(***************************************************************************)
(* The data-path configuration with THREE processes (one address each,    *)
(* ids 1..3): a master and two slaves, so that an election can choose      *)
(* between two members and a slave can hand-shake with a master that a    *)
(* third process replaced.  MC_data3.cfg is the safe setting from          *)
(* InitRegistered (the brokers registered, 18 steps from Init).  Too large *)
(* for CI: run it by name (spec/README.md gives its state count).          *)
(***************************************************************************)
EXTENDS AutoSwitch

MC_Processes == {"p1", "p2", "p3"}
MC_Addrs == [p \in MC_Processes |-> IF p = "p1" THEN {"a1"} ELSE IF p = "p2" THEN {"a2"} ELSE {"a3"}]
MC_BrokerIds == 1..3

MC_View == modelVars
=============================================================================
