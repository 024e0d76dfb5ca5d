/**
 * The hand-off order of one `mode="context"` request, conducted by the gateway
 * (apps/gateway/src/context/context-pipeline.service.ts); each arrow is a queue in {@link QueueName}:
 *
 *   gateway: validate → resolve identity, quotas, pins → load session (clock) when needed
 *     → Expand   (rewriter; awaited up to RECALL_INTENT_TIMEOUT_S; failure → the raw query)
 *     → ledger read (Redis: cooled URIs)
 *     → Find ×N  (retriever; one per bucket × planned query × target, plus other-peer scans;
 *                 all under one request deadline; a failed or late call → stats.retrieval_errors)
 *     → Assemble (assembler; reads bodies, plans tiers within the budget, renders)
 *     → Digest   (rewriter; awaited up to RECALL_REWRITE_TIMEOUT_S; late or failed → rendered intact)
 *     → ledger write (unless the digest said no_relevant) → answer
 *
 * Writes take a separate path: content write → Index (retriever) → parents' sidecars refreshed.
 *
 * Documentation only: the order is code in the conductor, not data anyone reads.
 */
export {};
