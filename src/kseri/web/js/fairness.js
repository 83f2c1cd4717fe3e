// Checking a round's deal (kseri.fairness): the revealed secret must hash (SHA-256) to the
// commitment published before the round, and the deal seed must be SHA-256(secret + "\n" + cut).

async function sha256Hex(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether this page can hash (crypto.subtle needs https or localhost). */
export function canVerify() {
  return Boolean(globalThis.crypto && crypto.subtle);
}

/**
 * Check each revealed round against the commitments this browser saw before it.
 * @param {Array<{round: number, secret: string, cut: string, deal_seed: string}>} revealed
 * @param {Object<string, string>} commitments round -> commitment as first seen
 * @returns {Promise<Array<{round: number, seed: string, secret: string, cut: string, commitment: string|undefined,
 *   status: "ok"|"bad-commitment"|"bad-seed"|"unseen"}>>}
 */
export async function verifyRounds(revealed, commitments) {
  const results = [];
  for (const item of revealed) {
    const committed = commitments[item.round];
    const seedOk = (await sha256Hex(`${item.secret}\n${item.cut ?? ""}`)) === item.deal_seed;
    let status;
    if (!seedOk) status = "bad-seed";
    else if (committed === undefined) status = "unseen";
    else status = (await sha256Hex(item.secret)) === committed ? "ok" : "bad-commitment";
    results.push({ round: item.round, seed: item.deal_seed, secret: item.secret, cut: item.cut ?? "", commitment: committed, status });
  }
  return results;
}
