// The pages' language: every string a page shows goes through t("…") (or N_("…"), translated
// where it is shown), with {name} placeholders; the catalogue is the service's /i18n/{lang}.json
// (the "pages" domain of ygoreplay/locale), or the catalogues an exported page holds.
//
// The language is the address's ?lang= (the server resolved it into <html lang>), then the one
// this browser chose before (localStorage), then the one the server negotiated from the
// browser's Accept-Language (<html lang> again). A switch on every page changes it: the page is
// opened again in the new language, so everything drawn and every sentence the server writes
// (log lines) are in it. The language is a reading choice: nothing recorded depends on it.

const SAVED = "ygoreplay.lang";

let messages = {};
let languages = { en: "English" };
export let language = "en";

// A constant marked for the catalogue, translated where it is shown with t().
export function N_(message) { return message; }

// ``message`` in the page's language, its {placeholders} filled from ``values``.
export function t(message, values) {
  const text = messages[message] || message;
  if (!values) return text;
  return text.replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
}

// The locale for dates, times and relative times: the browser's own, unless the reader chose a
// page language other than the browser's (English is also the page of a language with no catalogue).
export function locale() {
  const browser = (navigator.language || "").toLowerCase();
  return language === "en" || browser.startsWith(language.split("-")[0].toLowerCase()) ? undefined : language;
}

function saved() {
  try { return localStorage.getItem(SAVED); } catch (error) { return null; }   // private mode: none
}

function chosen() {
  const served = document.documentElement.lang || "en";
  if (new URLSearchParams(location.search).has("lang")) return served;
  return saved() || served;
}

// The static words of a page's HTML: an element marked data-t has its text translated, and every
// title, aria-label and placeholder attribute is (their English is the message).
export function translate(root) {
  for (const node of root.querySelectorAll("[data-t]")) node.textContent = t(node.textContent.trim());
  for (const name of ["title", "aria-label", "placeholder"]) {
    for (const node of root.querySelectorAll(`[${name}]`)) node.setAttribute(name, t(node.getAttribute(name)));
  }
}

// The language switch: each language in its own name; a change is remembered and reopens the page.
function switcher() {
  const header = document.querySelector("header.top") || document.body;
  const select = document.createElement("select");
  select.id = "lang";
  select.className = "langpick";
  select.setAttribute("aria-label", t("Language"));
  select.title = t("Language");
  for (const [tag, name] of Object.entries(languages)) {
    const option = document.createElement("option");
    option.value = tag;
    option.lang = tag;
    option.textContent = name;
    option.selected = tag === language;
    select.append(option);
  }
  select.addEventListener("change", () => {
    try { localStorage.setItem(SAVED, select.value); } catch (error) { /* private mode: this page only */ }
    const params = new URLSearchParams(location.search);
    if (!params.has("lang")) { location.reload(); return; }      // the saved choice decides (an exported page too)
    params.set("lang", select.value);                              // the address's ?lang= comes first: changed
    location.replace(`${location.pathname}?${params}${location.hash}`);
  });
  header.append(select);
}

async function load() {
  const holder = document.getElementById("ygr-i18n");
  let entry = null;
  if (holder) {                      // an exported page holds every catalogue: it needs no network
    const all = JSON.parse(holder.textContent);
    entry = all.catalogues[saved()] || all.catalogues[all.language];
  } else {
    entry = await fetchCatalogue(chosen()).catch(() => fetchCatalogue(document.documentElement.lang || "en"))
      .catch(() => null);            // no catalogue at all: the page speaks English
  }
  if (entry) ({ language, languages, messages } = entry);
  document.documentElement.lang = language;
  translate(document);
  switcher();
  return language;
}

async function fetchCatalogue(tag) {
  const response = await fetch(`/i18n/${encodeURIComponent(tag)}.json`);
  if (!response.ok) throw new Error(`no catalogue for ${tag}`);
  return response.json();
}

// Resolves with the language once the catalogue is in and the page's static words are translated.
export const ready = load();
