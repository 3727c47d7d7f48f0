import { routes } from "../../../../../lib/api/routes";
import { defineCommand } from "../registry";
import { table } from "../format";

export default defineCommand({
  name: ["packs", "list"],
  summary: "Certification packs (every page)",
  needsKey: false,
  options: {
    free: { type: "boolean", description: "Free packs only" },
    vertical: { type: "string", description: "Packs of one kind of work, e.g. LEAD_GEN" },
  },
  async run({ client, options }) {
    const packs = [];
    const query = {
      ...(options.free ? { isFree: true } : {}),
      ...(options.vertical ? { vertical: options.vertical } : {}),
    };
    for await (const pack of client.paginate(routes.listEvalPacks, { query })) packs.push(pack);
    return {
      json: packs,
      text: table(
        ["ID", "SLUG", "PRICE", "PASS", "CERTIFIED", "TITLE"],
        packs.map((p) => [
          p.id,
          p.slug,
          p.isFree ? "free" : `${p.priceUsdc} USDC`,
          `${p.passScore}/${p.questionCount}`,
          p.certifiedCount,
          p.title,
        ]),
      ),
    };
  },
});
