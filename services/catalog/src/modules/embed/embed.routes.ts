import { randomBytes } from 'node:crypto';
import { AppError } from '@msp/errors';
import { operation, type FastifyPluginAsyncZod } from '@msp/http';
import type { Playlist, Track } from '@msp/contracts';
import type { TrackReadsService } from '../tracks/track-reads.service.js';
import type { PlaylistsService } from '../playlists/playlists.service.js';

/**
 * The waveform painter both player pages run (inline, so the page needs no other asset): bars of
 * the peaks array, played part highlighted; `data-drawn` tells tests and embedders it has drawn.
 */
const DRAW_WAVEFORM_JS = `function draw() {
    var ctx = canvas.getContext('2d');
    var w = canvas.width, h = canvas.height;
    ctx.clearRect(0, 0, w, h);
    var played = audio.duration ? audio.currentTime / audio.duration : 0;
    var bar = w / Math.max(1, peaks.length);
    for (var i = 0; i < peaks.length; i++) {
      var v = Math.max(0.02, peaks[i]) * h;
      ctx.fillStyle = i / peaks.length < played ? '#f50' : '#999';
      ctx.fillRect(i * bar, (h - v) / 2, Math.max(1, bar - 0.2), v);
    }
    canvas.dataset.drawn = String(peaks.length);
  }`;

/**
 * The playback gain of the Track record's loudness (docs/sound.md), applied by the player, never
 * baked into the audio: a cut through the element's volume, a boost (volume cannot exceed 1)
 * through a Web Audio GainNode, built at the first play (browsers start audio contexts on a
 * gesture). `data-gain-db` and `data-gain-via` on the audio element say what was applied, and how.
 */
const APPLY_GAIN_JS = `function applyGain(gainDb) {
    var linear = Math.pow(10, (gainDb || 0) / 20);
    audio.dataset.gainDb = String(gainDb || 0);
    if (linear <= 1) { audio.volume = linear; audio.dataset.gainVia = 'volume'; return; }
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    var graph = null;
    audio.addEventListener('play', function () {
      if (!graph) {
        graph = new Ctx();
        var node = graph.createGain();
        node.gain.value = linear;
        graph.createMediaElementSource(audio).connect(node).connect(graph.destination);
        audio.dataset.gainVia = 'webaudio';
      }
      if (graph.state === 'suspended') graph.resume();
    });
  }`;

const PLAYER_HEIGHT = 166;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** `{webBaseUrl}/{username}/{trackSlug}` or the bare path (R1 link form). */
function parsePermalink(url: string, webBaseUrl: string): { username: string; trackSlug: string } | null {
  let path = url;
  const base = webBaseUrl.replace(/\/+$/, '');
  if (/^https?:\/\//i.test(url)) {
    if (!url.startsWith(`${base}/`)) return null;
    path = url.slice(base.length);
  }
  const match = /^\/([a-z0-9._-]{1,30})\/([a-z0-9-]{1,120})\/?(?:[?#].*)?$/.exec(path);
  if (!match || match[1] === 'embed') return null;
  return { username: match[1]!, trackSlug: match[2]! };
}

/** `{webBaseUrl}/{username}/sets/{playlistSlug}` or the bare path (R1 playlist link form). */
function parsePlaylistPermalink(url: string, webBaseUrl: string): { username: string; playlistSlug: string } | null {
  let path = url;
  const base = webBaseUrl.replace(/\/+$/, '');
  if (/^https?:\/\//i.test(url)) {
    if (!url.startsWith(`${base}/`)) return null;
    path = url.slice(base.length);
  }
  const match = /^\/([a-z0-9._-]{1,30})\/sets\/([a-z0-9-]{1,120})\/?(?:[?#].*)?$/.exec(path);
  if (!match) return null;
  return { username: match[1]!, playlistSlug: match[2]! };
}

const PLAYLIST_PLAYER_HEIGHT = 450;

/** The same player as tracks, with the playlist's track list: a click plays that track. */
function playlistPlayerHtml(playlist: Playlist, nonce: string): string {
  const items = playlist.trackSummaryDto.map((t) => ({
    title: t.title,
    artist: t.artist.displayName,
    audioUrl: t.trackUrl ?? t.trackPreviewUrl,
    waveformUrl: t.waveformUrl,
  }));
  const data = JSON.stringify({ tracks: items }).replace(/</g, '\\u003c');
  const list = items
    .map((t, i) => `<li><button type="button" data-index="${i}">${escapeHtml(t.title)} <span class="artist">· ${escapeHtml(t.artist)}</span></button></li>`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(playlist.title)} by ${escapeHtml(playlist.owner.displayName)}</title>
<style>
  body { margin: 0; font: 14px system-ui, sans-serif; background: #fff; color: #222; }
  .player { display: flex; flex-direction: column; gap: 6px; padding: 10px; height: ${PLAYLIST_PLAYER_HEIGHT - 20}px; box-sizing: border-box; }
  .title { font-weight: 600; }
  .artist { color: #666; }
  canvas { width: 100%; height: 60px; cursor: pointer; }
  audio { width: 100%; height: 32px; }
  ol { margin: 0; padding-left: 20px; overflow-y: auto; flex: 1; }
  li button { background: none; border: 0; padding: 3px 0; font: inherit; cursor: pointer; text-align: left; }
  li button[aria-current="true"] { color: #f50; }
</style>
</head>
<body>
<div class="player">
  <div><span class="title" id="title">${escapeHtml(playlist.title)}</span> · <span class="artist" id="artist">${escapeHtml(playlist.owner.displayName)}</span></div>
  <canvas id="waveform" width="1000" height="60" aria-label="waveform"></canvas>
  <audio id="audio" controls preload="none"></audio>
  <ol id="tracks">${list}</ol>
</div>
<script nonce="${nonce}" id="player-data" type="application/json">${data}</script>
<script nonce="${nonce}">
(function () {
  var data = JSON.parse(document.getElementById('player-data').textContent);
  var canvas = document.getElementById('waveform');
  var audio = document.getElementById('audio');
  var buttons = document.querySelectorAll('#tracks button');
  var peaks = [];
  var current = -1;
  ${DRAW_WAVEFORM_JS}
  function select(index, play) {
    var t = data.tracks[index];
    if (!t) return;
    current = index;
    for (var i = 0; i < buttons.length; i++) buttons[i].setAttribute('aria-current', i === index ? 'true' : 'false');
    peaks = [];
    draw();
    if (t.audioUrl) audio.src = t.audioUrl; else audio.removeAttribute('src');
    if (t.waveformUrl) fetch(t.waveformUrl).then(function (r) { return r.json(); }).then(function (p) { if (current === index) { peaks = p; draw(); } });
    if (play && t.audioUrl) audio.play();
  }
  for (var i = 0; i < buttons.length; i++) buttons[i].addEventListener('click', function (e) { select(Number(e.currentTarget.dataset.index), true); });
  audio.addEventListener('timeupdate', draw);
  audio.addEventListener('ended', function () { select(current + 1, true); });
  canvas.addEventListener('click', function (e) {
    if (!audio.duration) return;
    var rect = canvas.getBoundingClientRect();
    audio.currentTime = ((e.clientX - rect.left) / rect.width) * audio.duration;
  });
  select(0, false);
})();
</script>
</body>
</html>`;
}

function playerHtml(track: Track, nonce: string): string {
  const audio = track.trackUrl ?? track.trackPreviewUrl;
  const data = JSON.stringify({ waveformUrl: track.waveformUrl, audioUrl: audio, gainDb: track.loudness?.gainDb ?? 0 }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(track.title)} by ${escapeHtml(track.artist.displayName)}</title>
<style>
  body { margin: 0; font: 14px system-ui, sans-serif; background: #fff; color: #222; }
  .player { display: flex; flex-direction: column; gap: 6px; padding: 10px; height: ${PLAYER_HEIGHT - 20}px; box-sizing: border-box; }
  .title { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .artist { color: #666; }
  canvas { width: 100%; height: 60px; cursor: pointer; }
  audio { width: 100%; height: 32px; }
</style>
</head>
<body>
<div class="player">
  <div><span class="title" id="title">${escapeHtml(track.title)}</span> · <span class="artist" id="artist">${escapeHtml(track.artist.displayName)}</span></div>
  <canvas id="waveform" width="1000" height="60" aria-label="waveform"></canvas>
  <audio id="audio" controls preload="auto"${audio ? ` src="${escapeHtml(audio)}"` : ''}></audio>
</div>
<script nonce="${nonce}" id="player-data" type="application/json">${data}</script>
<script nonce="${nonce}">
(function () {
  var data = JSON.parse(document.getElementById('player-data').textContent);
  var canvas = document.getElementById('waveform');
  var audio = document.getElementById('audio');
  var peaks = [];
  ${DRAW_WAVEFORM_JS}
  ${APPLY_GAIN_JS}
  applyGain(data.gainDb);
  if (data.waveformUrl) {
    fetch(data.waveformUrl).then(function (r) { return r.json(); }).then(function (p) { peaks = p; draw(); });
  }
  audio.addEventListener('timeupdate', draw);
  canvas.addEventListener('click', function (e) {
    if (!audio.duration) return;
    var rect = canvas.getBoundingClientRect();
    audio.currentTime = ((e.clientX - rect.left) / rect.width) * audio.duration;
  });
})();
</script>
</body>
</html>`;
}

/**
 * EMBED-1 is the player page TRK-16's iframe shows (the web app serves `/embed/player` by passing
 * it through to this route); EMBED-2 the oEmbed answer for track permalinks. Both follow R2/R5:
 * public tracks for anyone, a private one only with its token in the player URL.
 */
export const embedModule: FastifyPluginAsyncZod<{
  tracks: TrackReadsService;
  playlists?: PlaylistsService;
  webBaseUrl: string;
  publicBaseUrl: string;
}> = async (app, { tracks, playlists, webBaseUrl, publicBaseUrl }) => {
  /** Playlist permalinks (PLS-15): public playlists for anyone, a private one with its token (R5, R6). */
  async function playlistOf(url: string, token: string | undefined): Promise<Playlist | null> {
    const link = parsePlaylistPermalink(url, webBaseUrl);
    if (!link || !playlists) return null;
    const playlist = token
      ? await playlists.byToken(token, null, { page: 0, size: 1 })
      : await playlists.resolve(link.playlistSlug, null).then((r) => playlists.get(r.id, null, { page: 0, size: 1 }));
    if (playlist.playlistSlug !== link.playlistSlug || playlist.owner.username !== link.username) throw new AppError('PLAYLIST_NOT_FOUND');
    return playlist;
  }

  async function trackOf(url: string, token: string | undefined): Promise<Track> {
    const link = parsePermalink(url, webBaseUrl);
    if (!link) throw AppError.validation([{ field: 'url', message: 'Not a track permalink of this service' }]);
    const track = token ? await tracks.byToken(token, null) : await tracks.resolve(link.trackSlug, null).then((r) => tracks.get(r.id, null));
    if (track.trackSlug !== link.trackSlug || track.artist.username !== link.username) throw new AppError('TRACK_NOT_FOUND');
    return track;
  }

  app.route({
    ...operation('EMBED-1'),
    handler: async (request, reply) => {
      const playlist = await playlistOf(request.query.url, request.query.token);
      const nonce = randomBytes(16).toString('base64');
      const self = new URL(publicBaseUrl).origin;
      const html = playlist ? playlistPlayerHtml(playlist, nonce) : playerHtml(await trackOf(request.query.url, request.query.token), nonce);
      return reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'private, no-store')
        .header(
          'content-security-policy',
          `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src ${self}; media-src ${self}; img-src ${self}; frame-ancestors *`,
        )
        .send(html);
    },
  });

  app.route({
    ...operation('EMBED-2'),
    handler: async (request) => {
      const playlist = await playlistOf(request.query.url, undefined);
      if (playlist) {
        const width = request.query.maxwidth ?? 600;
        const height = Math.min(request.query.maxheight ?? PLAYLIST_PLAYER_HEIGHT, PLAYLIST_PLAYER_HEIGHT);
        const web = webBaseUrl.replace(/\/+$/, '');
        const permalink = `${web}/${playlist.owner.username}/sets/${playlist.playlistSlug}`;
        const src = `${web}/embed/player?url=${encodeURIComponent(permalink)}`;
        return {
          version: '1.0' as const,
          type: 'rich' as const,
          provider_name: 'Music platform',
          provider_url: webBaseUrl,
          title: `${playlist.title} by ${playlist.owner.displayName}`,
          author_name: playlist.owner.displayName,
          author_url: `${web}/${playlist.owner.username}`,
          html: `<iframe width="${width}" height="${height}" scrolling="no" frameborder="no" allow="autoplay" src="${escapeHtml(src)}"></iframe>`,
          width,
          height,
          ...(playlist.coverArtUrl ? { thumbnail_url: playlist.coverArtUrl } : {}),
        };
      }
      const track = await trackOf(request.query.url, undefined);
      const width = request.query.maxwidth ?? 600;
      const height = Math.min(request.query.maxheight ?? PLAYER_HEIGHT, PLAYER_HEIGHT);
      const permalink = `${webBaseUrl.replace(/\/+$/, '')}/${track.artist.username}/${track.trackSlug}`;
      const src = `${webBaseUrl.replace(/\/+$/, '')}/embed/player?url=${encodeURIComponent(permalink)}`;
      return {
        version: '1.0' as const,
        type: 'rich' as const,
        provider_name: 'Music platform',
        provider_url: webBaseUrl,
        title: `${track.title} by ${track.artist.displayName}`,
        author_name: track.artist.displayName,
        author_url: `${webBaseUrl.replace(/\/+$/, '')}/${track.artist.username}`,
        html: `<iframe width="${width}" height="${height}" scrolling="no" frameborder="no" allow="autoplay" src="${escapeHtml(src)}"></iframe>`,
        width,
        height,
        ...(track.coverUrl ? { thumbnail_url: track.coverUrl } : {}),
      };
    },
  });
};
