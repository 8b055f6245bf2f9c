import type { RouteContract } from './route-types.js';
import type { ServiceName } from './services.js';

/**
 * Every public HTTP operation of API.md §3, in the order of the document.
 * Paths are relative to `/api`; parameter names are those of API.md so that
 * handlers and tests can quote them verbatim.
 */
export const ROUTES: readonly RouteContract[] = [
  // AUTH
  { id: 'AUTH-1', method: 'POST', path: '/auth/login/local', auth: 'none', owner: 'identity', body: 'json', summary: 'Login with email and password' },
  { id: 'AUTH-2', method: 'POST', path: '/auth/refreshtoken', auth: 'none', owner: 'identity', body: 'json', summary: 'Refresh access token' },
  { id: 'AUTH-3', method: 'POST', path: '/auth/logout', auth: 'optional', owner: 'identity', body: 'json', summary: 'Logout current session' },
  { id: 'AUTH-4', method: 'POST', path: '/auth/logout-all', auth: 'bearer', owner: 'identity', body: 'none', summary: 'Logout from all active sessions' },
  { id: 'AUTH-5', method: 'POST', path: '/auth/register/local', auth: 'none', owner: 'identity', body: 'json', summary: 'Register with email and password' },
  { id: 'AUTH-6', method: 'POST', path: '/auth/verify-email', auth: 'none', owner: 'identity', body: 'json', summary: 'Verify email' },
  { id: 'AUTH-7', method: 'POST', path: '/auth/resend-verification', auth: 'none', owner: 'identity', body: 'json', summary: 'Resend verification email' },
  { id: 'AUTH-8', method: 'POST', path: '/auth/forgot-password', auth: 'none', owner: 'identity', body: 'json', summary: 'Start password recovery' },
  { id: 'AUTH-9', method: 'POST', path: '/auth/reset-password', auth: 'none', owner: 'identity', body: 'json', summary: 'Reset password using token' },
  { id: 'AUTH-10', method: 'GET', path: '/oauth2/authorization/google', auth: 'none', owner: 'identity', body: 'none', summary: 'Trigger identity-provider login' },
  { id: 'AUTH-11', method: 'GET', path: '/login/oauth2/code/google', auth: 'none', owner: 'identity', body: 'none', summary: 'Identity-provider callback (internal)' },
  { id: 'AUTH-12', method: 'POST', path: '/auth/oauth/google', auth: 'none', owner: 'identity', body: 'json', summary: 'Exchange an oauth token with the service' },
  { id: 'AUTH-13', method: 'POST', path: '/auth/login/google', auth: 'none', owner: 'identity', body: 'json', summary: 'Login with an identity provider', deprecated: true },
  { id: 'AUTH-14', method: 'POST', path: '/auth/register/google', auth: 'none', owner: 'identity', body: 'json', summary: 'Register with an identity provider', deprecated: true },
  { id: 'AUTH-15', method: 'POST', path: '/auth/check-user', auth: 'none', owner: 'identity', body: 'json', summary: 'Check email or profile URL availability', deprecated: true },
  // SEC
  { id: 'SEC-1', method: 'PATCH', path: '/users/me/email', auth: 'bearer', owner: 'identity', body: 'json', summary: 'Change current user email' },
  { id: 'SEC-2', method: 'POST', path: '/users/me/add-new-email', auth: 'bearer', owner: 'identity', body: 'json', summary: 'Add additional email' },
  { id: 'SEC-3', method: 'POST', path: '/users/me/update-email-primary', auth: 'bearer', owner: 'identity', body: 'json', summary: 'Set primary email' },
  { id: 'SEC-4', method: 'PATCH', path: '/users/me/reset-password', auth: 'bearer', owner: 'identity', body: 'json', summary: 'Change logged-in user password' },
  // USR
  { id: 'USR-1', method: 'GET', path: '/users/me', auth: 'bearer', owner: 'identity', body: 'none', summary: 'Get current user profile' },
  { id: 'USR-2', method: 'PATCH', path: '/users/me', auth: 'bearer', owner: 'identity', body: 'json', summary: 'Update current user profile' },
  { id: 'USR-3', method: 'GET', path: '/users/me/privacy', auth: 'bearer', owner: 'identity', body: 'none', summary: 'Get privacy settings (additional)' },
  { id: 'USR-4', method: 'PATCH', path: '/users/me/privacy', auth: 'bearer', owner: 'identity', body: 'json', summary: 'Update privacy settings' },
  { id: 'USR-5', method: 'PATCH', path: '/users/me/tier', auth: 'bearer', owner: 'identity', body: 'json', summary: 'Update account tier' },
  { id: 'USR-6', method: 'PATCH', path: '/users/me/role', auth: 'bearer', owner: 'identity', body: 'json', summary: 'Update user role' },
  { id: 'USR-7', method: 'PATCH', path: '/users/me/permalink', auth: 'bearer', owner: 'identity', body: 'json', summary: 'Update user permalink' },
  { id: 'USR-8', method: 'PATCH', path: '/users/me/social-links', auth: 'bearer', owner: 'identity', body: 'json', summary: 'Update social links' },
  { id: 'USR-9', method: 'PATCH', path: '/users/me/images', auth: 'bearer', owner: 'identity', body: 'image', summary: 'Update profile or cover images' },
  { id: 'USR-10', method: 'DELETE', path: '/users/me/images/avatar', auth: 'bearer', owner: 'identity', body: 'none', summary: 'Delete current user avatar' },
  { id: 'USR-11', method: 'DELETE', path: '/users/me/images/cover', auth: 'bearer', owner: 'identity', body: 'none', summary: 'Delete current user cover' },
  { id: 'USR-12', method: 'PATCH', path: '/users/me/email/start', auth: 'bearer', owner: 'identity', body: 'json', summary: 'Start email change' },
  { id: 'USR-13', method: 'POST', path: '/users/me/email/verify', auth: 'optional', owner: 'identity', body: 'json', summary: 'Verify email change' },
  { id: 'USR-14', method: 'GET', path: '/users/{userId}', auth: 'optional', owner: 'identity', body: 'none', summary: 'Public profile by user id' },
  { id: 'USR-15', method: 'GET', path: '/users/username/{username}', auth: 'optional', owner: 'identity', body: 'none', summary: 'Public profile by username' },
  { id: 'USR-16', method: 'GET', path: '/users/suggested', auth: 'bearer', owner: 'social', body: 'none', summary: 'Suggested users to follow' },
  { id: 'USR-17', method: 'GET', path: '/users/me/history', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'User listening history' },
  { id: 'USR-18', method: 'GET', path: '/users/{userId}/tracks', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Tracks uploaded by a user' },
  { id: 'USR-19', method: 'GET', path: '/users/{username}/playlists', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Public playlists created by a user' },
  { id: 'USR-20', method: 'GET', path: '/users/me/liked-tracks', auth: 'bearer', owner: 'social', body: 'none', summary: 'Tracks liked by the current user' },
  { id: 'USR-21', method: 'GET', path: '/users/{username}/liked-playlists', auth: 'optional', owner: 'social', body: 'none', summary: 'Playlists liked by a user' },
  { id: 'USR-22', method: 'GET', path: '/users/{username}/reposted-tracks', auth: 'optional', owner: 'social', body: 'none', summary: 'Tracks reposted by a user' },
  // FOL
  { id: 'FOL-1', method: 'POST', path: '/users/{userId}/follow', auth: 'bearer', owner: 'social', body: 'none', summary: 'Follow a user' },
  { id: 'FOL-2', method: 'DELETE', path: '/users/{userId}/follow', auth: 'bearer', owner: 'social', body: 'none', summary: 'Unfollow a user' },
  { id: 'FOL-3', method: 'GET', path: '/users/{userId}/followers', auth: 'optional', owner: 'social', body: 'none', summary: 'Get followers' },
  { id: 'FOL-4', method: 'GET', path: '/users/{userId}/following', auth: 'optional', owner: 'social', body: 'none', summary: 'Get following' },
  // BLK
  { id: 'BLK-1', method: 'POST', path: '/users/{userId}/block', auth: 'bearer', owner: 'social', body: 'none', summary: 'Block a user' },
  { id: 'BLK-2', method: 'DELETE', path: '/users/{userId}/block', auth: 'bearer', owner: 'social', body: 'none', summary: 'Unblock a user' },
  { id: 'BLK-3', method: 'GET', path: '/users/me/blocked', auth: 'bearer', owner: 'social', body: 'none', summary: 'List blocked users' },
  // TRK
  { id: 'TRK-1', method: 'POST', path: '/tracks/upload', auth: 'bearer', owner: 'catalog', body: 'upload', summary: 'Upload a new track' },
  { id: 'TRK-2', method: 'POST', path: '/tracks/upload/v2', auth: 'bearer', owner: 'catalog', body: 'upload', summary: 'Upload a new track V2' },
  { id: 'TRK-3', method: 'GET', path: '/tracks/{trackId}/status', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Track status' },
  { id: 'TRK-4', method: 'POST', path: '/tracks/{trackId}/retry-processing', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Retry processing' },
  { id: 'TRK-5', method: 'POST', path: '/tracks/{trackId}/publish', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Publish track' },
  { id: 'TRK-6', method: 'GET', path: '/tracks/{trackId}', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Track metadata' },
  { id: 'TRK-7', method: 'GET', path: '/users/me/tracks/{trackId}', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Track metadata (user)' },
  { id: 'TRK-8', method: 'PATCH', path: '/tracks/{trackId}', auth: 'bearer', owner: 'catalog', body: 'image', summary: 'Update track metadata' },
  { id: 'TRK-9', method: 'DELETE', path: '/tracks/{trackId}', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Delete a track' },
  { id: 'TRK-10', method: 'DELETE', path: '/tracks/{trackId}/cover', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Delete track cover' },
  { id: 'TRK-11', method: 'GET', path: '/tracks/{trackId}/secret-token', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Get secret token' },
  { id: 'TRK-12', method: 'POST', path: '/tracks/{trackId}/regenerate-token', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Generate new secret token' },
  { id: 'TRK-13', method: 'GET', path: '/tracks/token/{token}', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Track with token' },
  { id: 'TRK-14', method: 'GET', path: '/tracks/resolve/{trackSlug}', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Resolve track slug to id' },
  { id: 'TRK-15', method: 'GET', path: '/tracks/{trackId}/waveform-url', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Waveform URL' },
  { id: 'TRK-16', method: 'GET', path: '/tracks/{trackId}/embed', auth: 'optional', owner: 'catalog', body: 'none', summary: 'HTML iframe embed code' },
  { id: 'TRK-17', method: 'POST', path: '/tracks/{trackId}/play', auth: 'optional', owner: 'catalog', body: 'json', summary: 'Increment play count' },
  { id: 'TRK-18', method: 'POST', path: '/tracks/{trackId}/complete', auth: 'optional', owner: 'catalog', body: 'json', summary: 'Mark a track as completely listened to' },
  { id: 'TRK-19', method: 'GET', path: '/tracks/{trackId}/download', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Mock offline download for Pro users' },
  { id: 'TRK-20', method: 'GET', path: '/genres', auth: 'none', owner: 'catalog', body: 'none', summary: 'Genres' },
  { id: 'TRK-21', method: 'GET', path: '/users/me/tracks', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Tracks of the current user' },
  { id: 'TRK-22', method: 'GET', path: '/users/username/{username}/tracks', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Tracks of another user' },
  { id: 'TRK-23', method: 'GET', path: '/tracks/user/{userId}', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Tracks of another user', deprecated: true },
  // MOD
  { id: 'MOD-1', method: 'POST', path: '/admin/login', auth: 'none', owner: 'identity', body: 'json', summary: 'Admin login' },
  { id: 'MOD-2', method: 'POST', path: '/tracks/{trackId}/report', auth: 'bearer', owner: 'social', body: 'json', summary: 'Report a track' },
  { id: 'MOD-3', method: 'POST', path: '/comments/{commentId}/report', auth: 'bearer', owner: 'social', body: 'json', summary: 'Report a comment' },
  { id: 'MOD-4', method: 'GET', path: '/admin/reports', auth: 'admin', owner: 'social', body: 'none', summary: 'View a list of reports (admin only)' },
  { id: 'MOD-5', method: 'GET', path: '/admin/reports/all', auth: 'admin', owner: 'social', body: 'none', summary: 'All reports' },
  { id: 'MOD-6', method: 'GET', path: '/admin/reports/{reportId}', auth: 'admin', owner: 'social', body: 'none', summary: 'View a specific report (admin only)' },
  { id: 'MOD-7', method: 'PATCH', path: '/admin/reports/{reportId}', auth: 'admin', owner: 'social', body: 'json', summary: 'Update report status (admin only)' },
  { id: 'MOD-8', method: 'PATCH', path: '/admin/users/{userId}/ban', auth: 'admin', owner: 'identity', body: 'json', summary: 'Ban a user' },
  { id: 'MOD-9', method: 'PATCH', path: '/admin/users/{userId}/suspend', auth: 'admin', owner: 'identity', body: 'json', summary: 'Suspend a user' },
  { id: 'MOD-10', method: 'GET', path: '/admin/users/banned', auth: 'admin', owner: 'identity', body: 'none', summary: 'Banned users' },
  { id: 'MOD-11', method: 'DELETE', path: '/admin/tracks/{trackId}', auth: 'admin', owner: 'catalog', body: 'none', summary: 'Admin delete track' },
  { id: 'MOD-12', method: 'GET', path: '/admin/analytics', auth: 'admin', owner: 'catalog', body: 'none', summary: 'Platform-wide metrics (admin only)' },
  // PLS
  { id: 'PLS-1', method: 'GET', path: '/users/me/playlists', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Get all playlists created by the current user' },
  { id: 'PLS-2', method: 'GET', path: '/users/me/playlists/{playlistId}', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Current user playlist with tracks' },
  { id: 'PLS-3', method: 'POST', path: '/playlists', auth: 'bearer', owner: 'catalog', body: 'image', summary: 'Create playlist' },
  { id: 'PLS-4', method: 'GET', path: '/playlists/{playlistId}', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Playlist with tracks' },
  { id: 'PLS-5', method: 'PATCH', path: '/playlists/{playlistId}', auth: 'bearer', owner: 'catalog', body: 'image', summary: 'Update playlist metadata' },
  { id: 'PLS-6', method: 'DELETE', path: '/playlists/{playlistId}', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Delete a playlist' },
  { id: 'PLS-7', method: 'DELETE', path: '/playlists/{playlistId}/cover', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Delete playlist cover' },
  { id: 'PLS-8', method: 'POST', path: '/playlists/{playlistId}/tracks', auth: 'bearer', owner: 'catalog', body: 'json', summary: 'Add track to playlist' },
  { id: 'PLS-9', method: 'DELETE', path: '/playlists/{playlistId}/tracks/{trackId}', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Remove track from playlist' },
  { id: 'PLS-10', method: 'PATCH', path: '/playlists/{playlistId}/tracks/reorder', auth: 'bearer', owner: 'catalog', body: 'json', summary: 'Reorder tracks inside a playlist' },
  { id: 'PLS-11', method: 'GET', path: '/playlists/{playlistId}/tracks', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Playlist tracks (additional)' },
  { id: 'PLS-12', method: 'GET', path: '/playlists/{playlistId}/secret-link', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Get playlist secret link' },
  { id: 'PLS-13', method: 'POST', path: '/playlists/{playlistId}/secret-link/regenerate', auth: 'bearer', owner: 'catalog', body: 'none', summary: 'Regenerate secret link' },
  { id: 'PLS-14', method: 'GET', path: '/playlists/token/{token}', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Playlist with token' },
  { id: 'PLS-15', method: 'GET', path: '/playlists/{playlistId}/embed', auth: 'optional', owner: 'catalog', body: 'none', summary: 'HTML iframe embed code for a playlist' },
  { id: 'PLS-16', method: 'GET', path: '/playlists/resolve', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Resolve playlist slug to id' },
  { id: 'PLS-17', method: 'GET', path: '/users/{username}/playlists/{playlistId}', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Playlists of a specific user with tracks' },
  // ENG
  { id: 'ENG-1', method: 'POST', path: '/tracks/{trackId}/like', auth: 'bearer', owner: 'social', body: 'none', summary: 'Like a track' },
  { id: 'ENG-2', method: 'DELETE', path: '/tracks/{trackId}/like', auth: 'bearer', owner: 'social', body: 'none', summary: 'Unlike a track' },
  { id: 'ENG-3', method: 'GET', path: '/users/tracks/{trackId}/like', auth: 'optional', owner: 'social', body: 'none', summary: 'Track likers' },
  { id: 'ENG-4', method: 'POST', path: '/tracks/{trackId}/repost', auth: 'bearer', owner: 'social', body: 'none', summary: 'Repost a track' },
  { id: 'ENG-5', method: 'DELETE', path: '/tracks/{trackId}/repost', auth: 'bearer', owner: 'social', body: 'none', summary: 'Remove track repost' },
  { id: 'ENG-6', method: 'GET', path: '/users/tracks/{trackId}/reposters', auth: 'optional', owner: 'social', body: 'none', summary: 'Track reposters' },
  { id: 'ENG-7', method: 'POST', path: '/playlists/{playlistId}/like', auth: 'bearer', owner: 'social', body: 'none', summary: 'Like a playlist' },
  { id: 'ENG-8', method: 'DELETE', path: '/playlists/{playlistId}/like', auth: 'bearer', owner: 'social', body: 'none', summary: 'Unlike a playlist' },
  { id: 'ENG-9', method: 'GET', path: '/users/playlists/{playlistId}/like', auth: 'optional', owner: 'social', body: 'none', summary: 'Playlist likers' },
  { id: 'ENG-10', method: 'POST', path: '/playlists/{playlistId}/repost', auth: 'bearer', owner: 'social', body: 'none', summary: 'Repost a playlist' },
  { id: 'ENG-11', method: 'DELETE', path: '/playlists/{playlistId}/repost', auth: 'bearer', owner: 'social', body: 'none', summary: 'Remove playlist repost' },
  { id: 'ENG-12', method: 'GET', path: '/users/playlists/{playlistId}/reposters', auth: 'optional', owner: 'social', body: 'none', summary: 'Playlist reposters' },
  { id: 'ENG-13', method: 'POST', path: '/tracks/{trackId}/comments', auth: 'bearer', owner: 'social', body: 'json', summary: 'Add a comment to a track' },
  { id: 'ENG-14', method: 'GET', path: '/tracks/{trackId}/comments', auth: 'optional', owner: 'social', body: 'none', summary: 'Comments of a track' },
  { id: 'ENG-15', method: 'DELETE', path: '/comments/{commentId}', auth: 'bearer', owner: 'social', body: 'none', summary: 'Delete comment' },
  { id: 'ENG-16', method: 'POST', path: '/comments/{commentId}/replies', auth: 'bearer', owner: 'social', body: 'json', summary: 'Add a reply to a comment' },
  { id: 'ENG-17', method: 'GET', path: '/comments/{commentId}/replies', auth: 'optional', owner: 'social', body: 'none', summary: 'Replies of a comment' },
  { id: 'ENG-18', method: 'GET', path: '/users/me/repost', auth: 'bearer', owner: 'social', body: 'none', summary: 'Tracks reposted by a user' },
  { id: 'ENG-19', method: 'GET', path: '/users/repost/{username}', auth: 'optional', owner: 'social', body: 'none', summary: 'User repost history' },
  { id: 'ENG-20', method: 'GET', path: '/users/{username}/liked-tracks', auth: 'optional', owner: 'social', body: 'none', summary: 'Tracks liked by a user' },
  // DSC
  { id: 'DSC-1', method: 'GET', path: '/feed', auth: 'bearer', owner: 'social', body: 'none', summary: 'Followed users feed' },
  { id: 'DSC-2', method: 'GET', path: '/explore/trending', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Popular tracks' },
  { id: 'DSC-3', method: 'GET', path: '/search', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Global search' },
  { id: 'DSC-4', method: 'GET', path: '/resolve', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Resolve a public permalink URL to an internal entity id' },
  { id: 'DSC-5', method: 'GET', path: '/stations/genre', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Generate a radio station based on a genre' },
  { id: 'DSC-6', method: 'GET', path: '/stations/artist', auth: 'optional', owner: 'catalog', body: 'none', summary: 'Radio station by artist similarities' },
  { id: 'DSC-7', method: 'GET', path: '/stations/likes', auth: 'bearer', owner: 'catalog', body: 'none', summary: "Radio station from the user's likes" },
  // MSG
  { id: 'MSG-1', method: 'GET', path: '/conversations', auth: 'bearer', owner: 'messaging', body: 'none', summary: 'List direct-message threads' },
  { id: 'MSG-2', method: 'POST', path: '/conversations/{userId}/start', auth: 'bearer', owner: 'messaging', body: 'json', summary: 'Start a thread' },
  { id: 'MSG-3', method: 'GET', path: '/conversations/{conversationId}/messages', auth: 'bearer', owner: 'messaging', body: 'none', summary: 'Messages within a thread' },
  { id: 'MSG-4', method: 'POST', path: '/conversations/{conversationId}/messages', auth: 'bearer', owner: 'messaging', body: 'json', summary: 'Send a message' },
  // NOT
  { id: 'NOT-1', method: 'GET', path: '/notifications', auth: 'bearer', owner: 'notification', body: 'none', summary: 'List notifications' },
  { id: 'NOT-2', method: 'GET', path: '/notifications/unread-count', auth: 'bearer', owner: 'notification', body: 'none', summary: 'Unread count' },
  { id: 'NOT-3', method: 'GET', path: '/notifications/badge', auth: 'bearer', owner: 'notification', body: 'none', summary: 'Quick badge unread count' },
  { id: 'NOT-4', method: 'POST', path: '/notifications/mark-all-read', auth: 'bearer', owner: 'notification', body: 'json', summary: 'Mark all unread as read' },
  { id: 'NOT-5', method: 'GET', path: '/notifications/settings', auth: 'bearer', owner: 'notification', body: 'none', summary: 'Get notification preferences' },
  { id: 'NOT-6', method: 'PATCH', path: '/notifications/settings', auth: 'bearer', owner: 'notification', body: 'json', summary: 'Update notification preferences' },
  { id: 'NOT-7', method: 'POST', path: '/users/me/device-tokens', auth: 'bearer', owner: 'notification', body: 'json', summary: 'Register a mobile device token for push notifications' },
  { id: 'NOT-8', method: 'DELETE', path: '/users/me/device-tokens', auth: 'bearer', owner: 'notification', body: 'none', summary: 'Unregister device' },
  // SUB
  { id: 'SUB-1', method: 'GET', path: '/subscription/status', auth: 'bearer', owner: 'billing', body: 'none', summary: 'Subscription status' },
  { id: 'SUB-2', method: 'POST', path: '/subscription/checkout', auth: 'bearer', owner: 'billing', body: 'json', summary: 'Initiate a checkout session with a payment provider' },
  { id: 'SUB-3', method: 'POST', path: '/subscription/cancel', auth: 'bearer', owner: 'billing', body: 'none', summary: 'Cancel' },
  { id: 'SUB-4', method: 'POST', path: '/subscription/renew', auth: 'bearer', owner: 'billing', body: 'none', summary: 'Renew' },
  { id: 'SUB-5', method: 'POST', path: '/webhook/stripe', auth: 'webhook-signature', owner: 'billing', body: 'raw', summary: 'Payment-provider webhook listener' },
  // Media and embeds: not operations of API.md §3 but the public byte paths behind the URLs the
  // API hands out (R4 signed audio, unsigned waveform/cover files) and the embed player of TRK-16.
  { id: 'MEDIA-1', method: 'GET', path: '/media/tracks/{trackId}/{rendition}', auth: 'none', owner: 'catalog', body: 'none', summary: 'Signed track audio: progressive, preview or HLS playlist (R4)' },
  { id: 'MEDIA-2', method: 'GET', path: '/media/tracks/{trackId}/segments/{segment}', auth: 'none', owner: 'catalog', body: 'none', summary: 'Signed HLS segment (R4)' },
  { id: 'MEDIA-3', method: 'GET', path: '/media/assets/{assetId}/{file}', auth: 'none', owner: 'catalog', body: 'none', summary: 'Waveform and cover files (unsigned, unguessable)' },
  { id: 'EMBED-1', method: 'GET', path: '/embed/player', auth: 'none', owner: 'catalog', body: 'none', summary: 'Embeddable track player page (TRK-16)' },
  { id: 'EMBED-2', method: 'GET', path: '/oembed', auth: 'none', owner: 'catalog', body: 'none', summary: 'oEmbed for track permalinks' },
  // WS: the handshake is public, the STOMP CONNECT frame carries the token; the
  // gateway proxies upgrades on /ws and SockJS traffic on /ws/** instead of routing them.
  { id: 'WS-1', method: 'GET', path: '/ws', auth: 'none', owner: 'notification', body: 'none', summary: 'STOMP websocket' },
  { id: 'WS-1', method: 'GET', path: '/ws/**', auth: 'none', owner: 'notification', body: 'none', summary: 'STOMP websocket' },
];

/** First route with this id (WS-1 has two entries; the raw /ws one comes first). */
export function routeById(id: string): RouteContract | undefined {
  return ROUTES.find((route) => route.id === id);
}

export function routesOf(owner: ServiceName): RouteContract[] {
  return ROUTES.filter((route) => route.owner === owner);
}

/** `/users/{userId}/follow` → `/users/:userId/follow`; `/ws/**` → `/ws/*` (Fastify wildcard). */
export function toFastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1').replace(/\/\*\*$/, '/*');
}
