(function __pi_prelude(toolsJson, globalsJson, storeJson, limitsJson) {
	// Evaluated in a fresh QuickJS context before the script. The worker never exposes a host
	// function to the VM: the script's requests (tool calls, output, the end) queue up in `outbox`
	// and the worker collects them with control("drain") between runs of the job queue. So a
	// script can reach nothing outside the VM, not even a bridge function it could misuse.
	//
	// Every function that can show up in a stack trace is named `__pi_*`, so errorText() can drop
	// the prelude's frames and keep the script's (the VM names every file "<input>").
	"use strict";
	const limits = JSON.parse(limitsJson);

	// Built-ins are shared with the prelude, so a script that patches one (Array.prototype.toJSON)
	// could garble what the prelude reports. Freeze them; properties that ordinary code assigns on
	// instances (an Error subclass's `name`) become accessors that define the property on the
	// instance instead of failing on the frozen prototype.
	(function __pi_lockdown() {
		const instanceWritable = new Set(["constructor", "name", "message", "toString", "toLocaleString", "valueOf", "toJSON"]);
		const visited = new Set([globalThis]);
		const todo = [];
		const visit = (value) => {
			if (((typeof value === "object" && value !== null) || typeof value === "function") && !visited.has(value)) {
				visited.add(value);
				todo.push(value);
			}
		};
		const shadowable = (owner, key, value, enumerable) => {
			const holder = {
				get __pi_get() {
					return value;
				},
				set __pi_get(next) {
					if (this === owner) throw new TypeError("Cannot assign to read only property '" + String(key) + "' of a built-in");
					if ((typeof this === "object" && this !== null) || typeof this === "function") {
						Object.defineProperty(this, key, { value: next, writable: true, enumerable: true, configurable: true });
					}
				},
			};
			const { get, set } = Object.getOwnPropertyDescriptor(holder, "__pi_get");
			Object.defineProperty(owner, key, { get, set, enumerable, configurable: false });
			visit(get);
			visit(set);
		};
		for (const key of Reflect.ownKeys(globalThis)) {
			const descriptor = Object.getOwnPropertyDescriptor(globalThis, key);
			visit(descriptor.value);
			visit(descriptor.get);
			visit(descriptor.set);
			if ("value" in descriptor && descriptor.configurable) {
				Object.defineProperty(globalThis, key, { writable: false, configurable: false });
			}
		}
		for (const hidden of [
			function* () {},
			async function () {},
			async function* () {},
			Int8Array,
			[][Symbol.iterator](),
			new Map()[Symbol.iterator](),
			new Set()[Symbol.iterator](),
			""[Symbol.iterator](),
			/x/[Symbol.matchAll](""),
		]) {
			visit(Object.getPrototypeOf(hidden));
		}
		while (todo.length > 0) {
			const object = todo.pop();
			visit(Object.getPrototypeOf(object));
			const descriptors = Object.getOwnPropertyDescriptors(object);
			for (const key of Reflect.ownKeys(descriptors)) {
				const descriptor = descriptors[key];
				if (!("value" in descriptor)) {
					visit(descriptor.get);
					visit(descriptor.set);
					continue;
				}
				visit(descriptor.value);
				if (descriptor.writable && descriptor.configurable && (object === Object.prototype || instanceWritable.has(key))) {
					shadowable(object, key, descriptor.value, descriptor.enumerable);
				}
			}
			Object.freeze(object);
		}
	})();

	const stringify = JSON.stringify;
	const parse = JSON.parse;
	const then = Promise.prototype.then;
	const ErrorType = Error;
	const TypeErrorType = TypeError;
	const RangeErrorType = RangeError;
	const outbox = [];
	const waiting = new Map();
	let callCount = 0;
	let ended = false;
	const EXIT = Object.freeze({});

	function __pi_end(ok, payload, writes) {
		if (ended) return;
		ended = true;
		outbox.push(ok ? { t: "done", ok: true, value: payload, writes } : { t: "done", ok: false, error: payload });
	}

	// "Name: message" followed by the script's own frames, with its file named codemode.js.
	function __pi_errorText(error) {
		const head = error.message ? error.name + ": " + error.message : String(error.name);
		const stack = typeof error.stack === "string" ? error.stack : "";
		const frames = stack
			.split("\n")
			.filter((line) => line.trim() !== "" && !line.includes("__pi_"))
			.map((line) => line.split("<input>:").join("codemode.js:"));
		return [head, ...frames].join("\n");
	}

	function __pi_show(value) {
		if (typeof value === "string") return value;
		if (value instanceof ErrorType) return __pi_errorText(value);
		if (typeof value === "number") return String(value);
		try {
			const json = stringify(value);
			return json === undefined ? String(value) : json;
		} catch {
			return String(value);
		}
	}

	function __pi_describeError(error) {
		try {
			if (error instanceof ErrorType) {
				return stringify({ name: String(error.name), message: String(error.message), stack: __pi_errorText(error) });
			}
			return stringify({ message: String(__pi_show(error)) });
		} catch {
			return stringify({ message: "The script threw a value that cannot be described" });
		}
	}

	function __pi_caller(target, name, spread) {
		return function __pi_call(...args) {
			return new Promise(function __pi_request(resolve, reject) {
				let json;
				try {
					const value = spread ? args : args[0];
					json = value === undefined ? null : stringify(value);
				} catch (error) {
					reject(error);
					return;
				}
				const id = ++callCount;
				waiting.set(id, { resolve, reject });
				outbox.push({ t: "call", id, target, name, args: json === undefined ? null : json });
			});
		};
	}

	// A missing member fails with the names that come close, instead of "not a function" later.
	const squash = (name) => name.toLowerCase().replace(/[^a-z0-9]/g, "");
	function __pi_guard(target, label, names, hint) {
		return new Proxy(target, {
			get: function __pi_get(object, key, receiver) {
				if (typeof key !== "string" || key in object || key in Object.prototype || key === "then" || key === "toJSON") {
					return Reflect.get(object, key, receiver);
				}
				const wanted = squash(key);
				const same = names.filter((name) => squash(name) === wanted);
				const near = same.length > 0 ? same : names.filter((name) => wanted !== "" && (squash(name).includes(wanted) || wanted.includes(squash(name))));
				let message = label + "." + key + " does not exist.";
				if (near.length > 0) message += " Did you mean " + near.slice(0, 5).map((name) => label + "." + name).join(", ") + "?";
				else if (names.length <= 20) message += " Available: " + names.join(", ") + ".";
				if (hint) message += " " + hint;
				message += ' Check for a member with "' + key + '" in ' + label + ".";
				throw new TypeErrorType(message);
			},
		});
	}

	const toolTable = Object.create(null);
	const allTools = [];
	for (const { name, jsName, description } of parse(toolsJson)) {
		const call = __pi_caller("tool", name, false);
		if (!(jsName in toolTable)) {
			toolTable[jsName] = call;
			allTools.push(Object.freeze({ name: jsName, description }));
		}
		if (!(name in toolTable)) toolTable[name] = call;
	}
	Object.freeze(toolTable);
	Object.freeze(allTools);
	const tools = __pi_guard(
		toolTable,
		"tools",
		allTools.map((tool) => tool.name),
		"ALL_TOOLS lists every tool; searchTools(query) finds tools by topic.",
	);

	const groups = new Map();
	for (const { name, spread } of parse(globalsJson)) {
		const call = __pi_caller("global", name, spread);
		const dot = name.indexOf(".");
		if (dot === -1) {
			Object.defineProperty(globalThis, name, { value: call, enumerable: true });
			continue;
		}
		const group = name.slice(0, dot);
		if (!groups.has(group)) groups.set(group, Object.create(null));
		groups.get(group)[name.slice(dot + 1)] = call;
	}
	for (const [group, members] of groups) {
		Object.freeze(members);
		Object.defineProperty(globalThis, group, { value: __pi_guard(members, group, Object.keys(members)), enumerable: true });
	}

	// The store: key -> JSON text; sizes count the key and the JSON.
	const kept = new Map(Object.entries(parse(storeJson)));
	const written = new Map();
	let keptChars = 0;
	for (const [key, json] of kept) keptChars += key.length + json.length;
	const STORE_ADVICE =
		"store() is for small state such as IDs or summaries. Show images with image(), keep large data in variables, or write it to a file with a tool.";

	function store(key, value) {
		if (typeof key !== "string") throw new TypeErrorType("store() key must be a string");
		const before = kept.has(key) ? key.length + kept.get(key).length : 0;
		if (value === undefined) {
			kept.delete(key);
			keptChars -= before;
			written.set(key, undefined);
			return;
		}
		let json;
		try {
			json = stringify(value);
		} catch (error) {
			throw new TypeErrorType("store(" + stringify(key) + ") value is not JSON-serializable: " + __pi_show(error));
		}
		if (json === undefined) throw new TypeErrorType("store(" + stringify(key) + ") value is not JSON-serializable");
		if (json.length > limits.storeValue) {
			throw new RangeErrorType(
				"store(" + stringify(key) + ") value has " + json.length + " characters of JSON, more than the limit of " + limits.storeValue + ". " + STORE_ADVICE,
			);
		}
		const after = keptChars - before + key.length + json.length;
		if (after > limits.storeTotal) {
			throw new RangeErrorType(
				"store is full: stored values would exceed " + limits.storeTotal + " characters of JSON. Delete keys with store(key, undefined). " + STORE_ADVICE,
			);
		}
		kept.set(key, json);
		keptChars = after;
		written.set(key, json);
	}

	function load(key) {
		if (typeof key !== "string") throw new TypeErrorType("load() key must be a string");
		const json = kept.get(key);
		return json === undefined ? undefined : parse(json);
	}

	const __pi_writes = () => stringify([...written].map(([key, json]) => (json === undefined ? [key] : [key, json])));

	let outputChars = 0;
	let outputItems = 0;
	function __pi_output(kind, data, mimeType) {
		if (ended) return;
		outputChars += data.length;
		outputItems++;
		if (outputChars > limits.outputChars || outputItems > limits.outputItems) {
			const error = new RangeErrorType(
				"script output exceeded the limit of " + limits.outputChars + " characters or " + limits.outputItems +
					" text(), image(), and console calls. Print a summary instead, or write large data to a file with a tool.",
			);
			__pi_end(false, __pi_describeError(error));
			throw error;
		}
		outbox.push({ t: "out", kind, data, mime: mimeType });
	}

	function __pi_text(value) {
		let shown;
		try {
			shown = value === null || (typeof value !== "object" && typeof value !== "function") ? String(value) : stringify(value);
			if (shown === undefined) shown = String(value);
		} catch (error) {
			throw new TypeErrorType(error instanceof ErrorType ? error.message : String(error));
		}
		__pi_output("text", shown);
	}

	const IMAGE_USAGE = 'image expects a non-empty image URL string, an object with image_url, or an image block { type: "image", data, mimeType }';
	function __pi_imageUrl(value) {
		if (typeof value === "string") return value;
		if (typeof value !== "object" || value === null || Array.isArray(value)) throw new TypeErrorType(IMAGE_USAGE);
		if (value.image_url !== undefined) {
			if (typeof value.image_url !== "string") throw new TypeErrorType(IMAGE_USAGE);
			return value.image_url;
		}
		if (typeof value.type !== "string") throw new TypeErrorType(IMAGE_USAGE);
		if (value.type !== "image") throw new TypeErrorType('image only accepts image blocks, got "' + value.type + '"');
		if (typeof value.data !== "string" || value.data === "") throw new TypeErrorType("image expected image block data");
		return value.data.toLowerCase().startsWith("data:") ? value.data : "data:;base64," + value.data;
	}
	// Base64 prefixes of the formats providers take inline: PNG, JPEG (not JPEG-LS), GIF, WebP.
	const SIGNATURES = [
		["image/png", /^iVBORw0KGg/],
		["image/jpeg", /^[/]9j[/](?!9)/],
		["image/gif", /^R0lGOD[dl]h/],
		["image/webp", /^UklG.{8}RUJQ/],
	];
	function __pi_image(value) {
		const url = __pi_imageUrl(value);
		if (url === "") throw new TypeErrorType(IMAGE_USAGE);
		const colon = url.indexOf(":");
		const scheme = colon === -1 ? "" : url.slice(0, colon).toLowerCase();
		if (scheme === "http" || scheme === "https") {
			throw new TypeErrorType("remote image URLs are not supported in tool outputs. Pass a base64 data URI instead");
		}
		const comma = url.indexOf(",");
		const params = comma === -1 ? [] : url.slice(colon + 1, comma).split(";").slice(1);
		if (scheme !== "data" || comma === -1 || !params.some((part) => part.toLowerCase() === "base64")) {
			throw new TypeErrorType("invalid image output. Pass a base64 data URI instead");
		}
		const data = url.slice(comma + 1).replace(/\s+/g, "");
		if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) {
			throw new TypeErrorType("invalid image output. The image data is not valid base64 (truncated or corrupted?)");
		}
		const found = SIGNATURES.find(([, pattern]) => pattern.test(data.slice(0, 16)));
		if (!found) throw new TypeErrorType("invalid image output. The image data is not a PNG, JPEG, GIF, or WebP image");
		__pi_output("image", data, found[0]);
	}

	function __pi_exit() {
		let writes;
		try {
			writes = __pi_writes();
		} catch (error) {
			__pi_end(false, __pi_describeError(error));
			throw EXIT;
		}
		__pi_end(true, null, writes);
		throw EXIT;
	}

	const consoleObject = {};
	for (const level of ["log", "info", "warn", "error", "debug"]) {
		consoleObject[level] = function __pi_console(...args) {
			__pi_output("console", args.map(__pi_show).join(" "));
		};
	}
	Object.freeze(consoleObject);

	const define = (name, value) => Object.defineProperty(globalThis, name, { value, enumerable: true });
	define("tools", tools);
	define("ALL_TOOLS", allTools);
	define("console", consoleObject);
	define("text", __pi_text);
	define("image", __pi_image);
	define("exit", __pi_exit);
	define("store", store);
	define("load", load);

	// The worker's only handle on the VM.
	return function __pi_control(op, id, ok, payload) {
		if (op === "run") {
			let promise;
			try {
				promise = id(tools, consoleObject);
			} catch (error) {
				__pi_end(false, __pi_describeError(error));
				return;
			}
			then.call(
				promise,
				(value) => {
					let json;
					try {
						json = value === undefined ? null : stringify(value);
					} catch (error) {
						__pi_end(false, __pi_describeError(error));
						return;
					}
					__pi_end(true, json === undefined ? null : json, __pi_writes());
				},
				(error) => __pi_end(false, __pi_describeError(error)),
			);
			return;
		}
		if (op === "settle") {
			const entry = waiting.get(id);
			if (!entry) return;
			waiting.delete(id);
			if (!ok) {
				entry.reject(new ErrorType(payload));
				return;
			}
			let value;
			try {
				value = payload === null ? undefined : parse(payload);
			} catch (error) {
				entry.reject(error);
				return;
			}
			entry.resolve(value);
			return;
		}
		if (op === "drain") {
			const batch = stringify(outbox);
			outbox.length = 0;
			return batch;
		}
		if (op === "stalled") {
			if (ended || waiting.size > 0) return false;
			__pi_end(
				false,
				stringify({
					name: "Error",
					message: "The script is waiting on a promise that can never settle: no tool call is pending, and timers do not exist here.",
				}),
			);
			return true;
		}
		if (op === "ended") return ended;
	};
})
