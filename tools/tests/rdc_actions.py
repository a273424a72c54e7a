"""Open a RenderDoc capture with the real replay library (Debian's python3-renderdoc) and
print its action tree: one line per action, `depth<TAB>flags<TAB>name`, where flags holds
`marker`, `draw` and/or `dispatch`. Run with the system python: /usr/bin/python3 rdc_actions.py FILE."""
import sys

import renderdoc as rd


def main():
    rd.InitialiseReplay(rd.GlobalEnvironment(), [])
    cap = rd.OpenCaptureFile()
    status = cap.OpenFile(sys.argv[1], "", None)
    if status != rd.ResultCode.Succeeded:
        sys.exit("cannot open %s: %s" % (sys.argv[1], status))
    if not cap.LocalReplaySupport():
        sys.exit("capture cannot be replayed here")
    status, controller = cap.OpenCapture(rd.ReplayOptions(), None)
    if status != rd.ResultCode.Succeeded:
        sys.exit("cannot replay %s: %s" % (sys.argv[1], status))
    sfile = controller.GetStructuredFile()
    out = []

    def name(a):
        return a.GetName(sfile)

    def walk2(actions, depth):
        for a in actions:
            flags = []
            if a.flags & rd.ActionFlags.PushMarker:
                flags.append("marker")
            if a.flags & rd.ActionFlags.Drawcall:
                flags.append("draw")
            if a.flags & rd.ActionFlags.Dispatch:
                flags.append("dispatch")
            out.append("%d\t%s\t%s" % (depth, ",".join(flags) or "-", name(a)))
            walk2(a.children, depth + 1)

    walk2(controller.GetRootActions(), 0)
    print("\n".join(out))
    controller.Shutdown()
    cap.Shutdown()
    rd.ShutdownReplay()


if __name__ == "__main__":
    main()
