// What routing and unrouting did, in a few sentences for the person: the
// servers moved, the profile made, what stayed in the host's file and why,
// the secrets kept. The library reports; these only put it into words.

import type { RouteReport, Routed, UnrouteReport } from '../backend';
import { hostTitle, listOf } from '../hosts';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The sentences that say what routing the host `title` did. */
export function describeRoute(report: RouteReport, title = hostTitle(report.host)): string[] {
  const { import: imported } = report;
  const sentences = [
    `${title} now goes through MCP Sieve with profile ${report.profile}${
      report.profileCreated ? ', made now from the servers it had' : ''
    }.`,
  ];
  if (report.moved.length > 0) {
    sentences.push(
      `Moved ${plural(report.moved.length, 'server')} from its file behind MCP Sieve: ${listOf(report.moved)}.`,
    );
  }
  for (const { from, to } of imported.renamed) {
    sentences.push(`${from} is ${to} in config.json, since a different server has its name.`);
  }
  for (const { name, message } of imported.skipped) {
    sentences.push(`${name} was not added again: ${message}.`);
  }
  if (report.left.length > 0) {
    const why = report.left.map(({ name, reason }) => `${name} (${reason})`);
    const them = report.left.length === 1 ? 'it' : 'them';
    sentences.push(`Left in its file, as MCP Sieve cannot run ${them}: ${why.join('; ')}.`);
  }
  const kept = imported.keptSecrets ?? [];
  if (kept.length > 0) {
    sentences.push(`${plural(kept.length, 'secret value')} kept in the system keychain, not in config.json.`);
  } else if (imported.secrets.length > 0) {
    const keys = imported.secrets.map(({ server, key }) => `${server} ${key}`);
    sentences.push(`The values of ${listOf(keys)} are in config.json as its file had them.`);
  }
  if (report.write.changed) {
    sentences.push(
      report.write.backup
        ? `Its file is rewritten; the old one is kept as ${report.write.backup}. Restart ${title} to load it.`
        : `Its file is written. Restart ${title} to load it.`,
    );
  } else {
    sentences.push('Its file already said this; nothing was written.');
  }
  return sentences;
}

/** The sentences that say what giving the host `title` back its servers did. */
export function describeUnroute(report: UnrouteReport, title = hostTitle(report.host)): string[] {
  const sentences: string[] = [];
  if (!report.recorded) {
    sentences.push(`MCP Sieve's entry is out of ${title}'s file; there was no record of servers to give back.`);
  } else if (report.restored.length > 0) {
    const servers = plural(report.restored.length, 'server');
    sentences.push(`${title} has its ${servers} back in its file: ${listOf(report.restored)}; MCP Sieve's entry is out.`);
  } else {
    sentences.push(`${title} no longer goes through MCP Sieve; it had no servers of its own to give back.`);
  }
  if (report.kept.length > 0) {
    sentences.push(`Not put back, as its file has a server of that name again: ${listOf(report.kept)}.`);
  }
  if (report.write.changed) sentences.push(`Restart ${title} to load it.`);
  return sentences;
}

/** One sentence or two for routing every host: which were routed, which not and why. */
export function describeRouteAll(results: readonly Routed[]): string[] {
  if (results.length === 0) return ['No host was found on this machine to route.'];
  const routed = results.flatMap(({ host, report }) =>
    report ? [`${hostTitle(host)} (profile ${report.profile})`] : [],
  );
  const sentences: string[] = [];
  if (routed.length > 0) {
    sentences.push(`Routed ${plural(routed.length, 'host')} through MCP Sieve: ${listOf(routed)}.`);
  }
  for (const { host, error } of results) {
    if (error) sentences.push(`${hostTitle(host)} was not routed: ${error.message}`);
  }
  return sentences;
}
