// The light build of bottleneck (what @octokit/plugin-throttling itself loads) ships no typings of its own.
declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck'
  export default Bottleneck
}
