// The public surface of the pure domain kernel (`@app/kernel`); nothing else is imported from outside.
export * from './kernel.error';

export * from './text/py-text';
export * from './text/py-coerce';
export * from './text/lax-boolean';
export * from './text/trim';
export * from './text/segment-words';
export * from './text/spelling-variants';

export * from './uri/identifier';
export * from './uri/uri-path';
export * from './uri/viking-uri';
export * from './uri/uri-shape';
export * from './uri/path-variables';

export * from './identity/identity';
export * from './identity/access';
export * from './identity/default-targets';
export * from './identity/find-targets';
export * from './identity/account-limits';
export * from './identity/audit';
export * from './identity/suspension';
export * from './identity/account-import';
export * from './identity/import-session-extras';

export * from './filter/filter-node';
export * from './filter/filter-limits';
export * from './filter/regex-subset';
export * from './filter/context-types';
export * from './filter/levels';
export * from './filter/search-tags';
export * from './filter/time-bound';
export * from './filter/build-filter';

export * from './budget/token-estimate';
export * from './budget/per-entry-cap';

export * from './tiering/tier';
export * from './tiering/category';
export * from './tiering/candidate';
export * from './tiering/detail-pins';
export * from './tiering/tier-window';
export * from './tiering/tier-text';

export * from './overview/okf-frontmatter';
export * from './overview/memory-fields';
export * from './overview/memory-summary';
export * from './overview/document-outline';
export * from './overview/code-skeleton';
export * from './overview/query-excerpt';

export * from './planning/assembled-entry';
export * from './planning/read-policy';
export * from './planning/plan-entries';
export * from './planning/redundancy';
export * from './planning/seen-entries';
export * from './planning/explain';
export * from './planning/assemble-block';
export * from './planning/assemble-reading';

export * from './render/format-score';
export * from './render/render-entry';

export * from './gathering/quotas';
export * from './gathering/penalties';
export * from './gathering/category-for';
export * from './gathering/origin';
export * from './gathering/overfetch';
export * from './gathering/find-hit';
export * from './gathering/build-candidates';
export * from './gathering/retrieval-plan';
export * from './gathering/retrieval-errors';
export * from './gathering/retrieval-merge';
export * from './gathering/corrections';

export * from './request/context-bounds';
export * from './request/context-fields';
export * from './request/category-keys';
export * from './request/idempotency';
export * from './request/ignored-fields';
export * from './request/rewrite-mode';
export * from './request/round-half-even';
export * from './request/recall-fold';
export * from './request/exclude-uris';

export * from './ledger/recall-ledger';
export * from './ledger/ledger-store.port';
export * from './ledger/in-memory-ledger-store';

export * from './stats/context-stats';
export * from './stats/stage-timer';
export * from './stats/queue-activity';

export * from './digest/normalize-digest';
export * from './digest/rewrite-outcome';

export * from './expansion/planned-queries';

export * from './indexing';

export * from './fs/glob-pattern';
export * from './fs/tree-order';
export * from './fs/delete-guard';
export * from './fs/write-rules';
export * from './session';
export * from './jitter';
export * from './until-aborted';
export * from './text/json-bytes';
