import React, { useState } from "react";

/** Props of {@link Button}. */
export interface ButtonProps {
  label: string;
  onClick?: () => void;
}

/** A clickable button. */
export const Button = ({ label, onClick }: ButtonProps): JSX.Element => {
  const [pressed, setPressed] = useState(false);
  return (
    <button className={pressed ? "on" : "off"} onClick={() => { setPressed(true); onClick?.(); }}>
      {label}
    </button>
  );
};

/**
 * Panel groups buttons.
 */
export default class Panel extends React.Component<{ title: string }> {
  render() {
    return <section><h1>{this.props.title}</h1></section>;
  }
}

function useToggle(initial: boolean): [boolean, () => void] {
  const [on, setOn] = useState(initial);
  return [on, () => setOn(!on)];
}

type Theme = "light" | "dark";
