// Pi's own prepareCompaction on a session file's active branch, for the side-by-side cut tests.
// Usage: node pi_prepare.mjs <Pi's dist folder> <session.jsonl> <keepRecentTokens>
const [dist, file, keep] = process.argv.slice(2);
const { SessionManager } = await import(`${dist}/core/session-manager.js`);
const { prepareCompaction } = await import(`${dist}/core/compaction/compaction.js`);
const branch = SessionManager.open(file).getBranch();
const prepared = prepareCompaction(branch, { enabled: true, reserveTokens: 16384, keepRecentTokens: Number(keep) });
process.stdout.write(JSON.stringify(prepared === undefined ? null : {
  firstKept: prepared.firstKeptEntryId,
  split: prepared.isSplitTurn,
  summarized: prepared.messagesToSummarize.length,
  prefix: prepared.turnPrefixMessages.length,
}));
