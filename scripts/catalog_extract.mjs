// Reads the provider definitions of an installed @earendil-works/pi-ai package (the parts that
// are code, not JSON: display names, base URLs, default headers, how credentials are found) and
// prints them as one JSON document on stdout. scripts/generate_catalog.py runs this and merges the
// result with the package's model JSON files; see its docstring for the whole update.
//
// Usage: node catalog_extract.mjs <pi-ai package dir> [<pi-coding-agent package dir>]
//
// The credential rules of a provider are closures, so they are learnt by asking them: each
// provider's API-key resolver is called with a fake environment that records which variables it
// reads; sets of variables are tried, smallest first, until the resolver accepts one. Every
// minimal accepted set is one way to configure the provider (for example AWS_ACCESS_KEY_ID with
// AWS_SECRET_ACCESS_KEY for Amazon Bedrock). Nothing here touches the network or the real
// environment.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [piAiDir, codingAgentDir] = process.argv.slice(2);
if (!piAiDir) {
    console.error("usage: node catalog_extract.mjs <pi-ai package dir> [<pi-coding-agent package dir>]");
    process.exit(2);
}

const importFrom = (dir, relative) => import(pathToFileURL(join(dir, relative)).href);

const all = await importFrom(piAiDir, "dist/providers/all.js");
const envApiKeys = await importFrom(piAiDir, "dist/env-api-keys.js");

// Values handed to a resolver: recognisable, so the key and headers it builds can be traced back.
const placeholder = (name) => `<${name}>`;
const MAX_SET = 4;

function traceValue(value, names) {
    if (typeof value !== "string") return value;
    let out = value;
    for (const name of names) out = out.split(placeholder(name)).join(`{${name}}`);
    return out;
}

/** Calls the resolver with only `names` set; returns what it read, the file it checked and its answer. */
async function probeOnce(resolver, names, fileExists) {
    const read = [];
    const files = [];
    const ctx = {
        env: async (name) => {
            if (!read.includes(name)) read.push(name);
            return names.includes(name) ? placeholder(name) : undefined;
        },
        fileExists: async (path) => {
            files.push(path);
            return fileExists;
        },
    };
    let result;
    try {
        result = await resolver.resolve({ ctx, credential: undefined, signal: new AbortController().signal });
    } catch (error) {
        result = { error: String(error) };
    }
    return { read, files, result };
}

/** Every minimal set of environment variables (plus, where asked, an existing file) the resolver accepts. */
async function probeAuth(resolver) {
    const ways = [];
    for (const fileExists of [false, true]) {
        const queue = [[]];
        const tried = new Set();
        while (queue.length > 0) {
            const names = queue.shift();
            const key = [...names].sort().join(",");
            if (tried.has(key)) continue;
            tried.add(key);
            if (ways.some((way) => way.env.every((n) => names.includes(n)) && (!way.file || fileExists))) continue;
            const { read, files, result } = await probeOnce(resolver, names, fileExists);
            if (result && !result.error) {
                const auth = result.auth ?? {};
                const way = { env: names.slice() };
                const keyName = names.find((n) => auth.apiKey === placeholder(n));
                if (keyName) way.key = keyName;
                if (auth.headers) {
                    way.headers = Object.fromEntries(
                        Object.entries(auth.headers).map(([h, v]) => [h, traceValue(v, names)]),
                    );
                }
                if (result.env) way.passes = Object.keys(result.env);
                if (files.length > 0 && fileExists) {
                    // The file must exist: its default path, and the variable that points elsewhere
                    // (the one whose value becomes the path checked once it is set).
                    way.file = { default: files[0] };
                    for (const name of read.filter((n) => !names.includes(n))) {
                        const moved = await probeOnce(resolver, [...names, name], true);
                        if (moved.files.includes(placeholder(name))) way.file.env = name;
                    }
                }
                way.source = result.source;
                ways.push(way);
                continue;
            }
            if (names.length >= MAX_SET) continue;
            for (const name of read) {
                if (!names.includes(name)) queue.push([...names, name]);
            }
        }
    }
    // A way found with the file present that needs no file is the same way found earlier.
    return ways.filter(
        (way, index) => ways.findIndex((other) => JSON.stringify(other.env) === JSON.stringify(way.env) && !other.file === !way.file) === index,
    );
}

/** The variables env-api-keys.js lists for a provider, in its order (what `findEnvKeys` checks). */
function envKeyNames(providerId) {
    const everything = new Proxy({}, { get: (_target, name) => (typeof name === "string" ? placeholder(name) : undefined) });
    return envApiKeys.findEnvKeys(providerId, everything) ?? [];
}

const providers = [];
for (const provider of all.builtinProviders()) {
    const apiKey = provider.auth?.apiKey;
    const oauth = provider.auth?.oauth;
    providers.push({
        id: provider.id,
        name: provider.name,
        baseUrl: provider.baseUrl ?? null,
        headers: provider.headers ?? null,
        apiKey: apiKey ? { name: apiKey.name, ways: await probeAuth(apiKey) } : null,
        oauth: oauth
            ? { name: oauth.name, isSubscription: oauth.isSubscription ?? false, loginLabel: oauth.loginLabel ?? null }
            : null,
        envKeys: envKeyNames(provider.id),
    });
}

let defaultModels = null;
if (codingAgentDir && existsSync(join(codingAgentDir, "dist/core/model-resolver.js"))) {
    const resolver = await importFrom(codingAgentDir, "dist/core/model-resolver.js");
    defaultModels = resolver.defaultModelPerProvider ?? null;
}

process.stdout.write(
    JSON.stringify({ providers, defaultModels }),
);
