// The model picker: the gateway's profiles (GET /profiles), unavailable ones disabled with the reason as their
// title, the open conversation's selected. A change goes out as `profile` with the next message; once answered, the
// gateway keeps it as the conversation's.
import { t } from "./i18n.js";

const picker = document.getElementById("profile");
const box = picker.closest(".profile-picker");
const state = { fallback: null, current: null }; // the gateway's default; the open conversation's (null: the default)

function option(profile) {
  const label = profile.model && profile.model !== profile.name ? `${profile.name} · ${profile.model}` : profile.name;
  const node = new Option(profile.available ? label : `${label} (${t("unavailable")})`, profile.name);
  node.disabled = !profile.available;
  node.title = profile.available ? profile.host || "" : profile.reason;
  return node;
}

function select() {
  if (state.fallback) picker.value = state.current || state.fallback;
}

export async function loadProfiles() {
  try {
    const response = await fetch("/profiles", { cache: "no-store" });
    const { default: fallback, profiles } = await response.json();
    state.fallback = fallback;
    picker.replaceChildren(...profiles.map(option));
    box.hidden = false;
    select();
  } catch {
    box.hidden = true; // an older gateway: every turn uses its one profile
  }
}

// The profile of the conversation just opened.
export function showProfile(profile) {
  state.current = profile || null;
  select();
}

// The profile a turn just switched the conversation to (the menu stays as it is: a pick made meanwhile still goes
// out with the next message).
export function profileKept(profile) {
  state.current = profile;
}

// What a turn sends: the picked profile when it is not the conversation's already, else nothing.
export function pickedProfile() {
  return picker.value && picker.value !== (state.current || state.fallback) ? picker.value : undefined;
}
