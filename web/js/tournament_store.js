// What this browser keeps of a tournament (localStorage): the director's token, given once when
// the tournament was created, and the player's own (his name and the token his claim gave him).

const DIRECTOR = (id) => `crapette:tournament:${id}:director`;
const PLAYER = (id) => `crapette:tournament:${id}:player`;

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(key) ?? "null");
  } catch {
    return null;
  }
}

export function saveDirector(id, token) {
  localStorage.setItem(DIRECTOR(id), JSON.stringify(token));
}

export function loadDirector(id) {
  return read(DIRECTOR(id));
}

export function savePlayer(id, name, token) {
  localStorage.setItem(PLAYER(id), JSON.stringify({ name, token }));
}

export function loadPlayer(id) {
  return read(PLAYER(id));
}

export function forgetPlayer(id) {
  localStorage.removeItem(PLAYER(id));
}
